// A stream's bytes on the wire: SseWriter frames HTTP/1.1's chunks itself, so they are checked
// byte by byte here, for the client that reads them raw, for a pipelined request and for HTTP/1.0.
import http from "node:http";
import type {AddressInfo} from "node:net";
import {afterEach, describe, expect, it} from "vitest";
import type {Script} from "./support/fakeEngine.js";
import {rawExchange} from "./support/rawSocket.js";
import {dataEvents} from "./support/sse.js";
import {chatRequest, createTestApp} from "./support/testApp.js";

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
}));

/** Multi-byte text: a chunk's size counts bytes, not characters. */
const pieces = ["Hé", "llo ", "😀", " wörld"];

async function listen(script: Script = {pieces}): Promise<number> {
    const t = createTestApp();
    t.model.script = script;
    server = http.createServer(t.app).listen(0, "127.0.0.1");
    await new Promise((resolve) => server!.once("listening", resolve));
    return (server.address() as AddressInfo).port;
}

function rawRequest(version: "1.0" | "1.1", body: Record<string, unknown>): string {
    const json = JSON.stringify(body);
    return `POST /v1/chat/completions HTTP/${version}\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
}

type Response = {head: string, body: string, rest: Buffer};

/** One response off the front of `bytes`, its chunked body decoded strictly (a size that does not match its bytes fails). */
function takeChunkedResponse(bytes: Buffer): Response {
    const headEnd = bytes.indexOf("\r\n\r\n");
    const head = bytes.subarray(0, headEnd).toString("latin1").toLowerCase();
    expect(head).toContain("transfer-encoding: chunked");
    const body: Buffer[] = [];
    let at = headEnd + 4;
    for (;;) {
        const lineEnd = bytes.indexOf("\r\n", at);
        const size = Number.parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
        expect(Number.isInteger(size)).toBe(true);
        at = lineEnd + 2;
        body.push(bytes.subarray(at, at + size));
        expect(bytes.subarray(at + size, at + size + 2).toString("latin1")).toBe("\r\n");
        at += size + 2;
        if (size === 0)
            return {head, body: Buffer.concat(body).toString("utf8"), rest: bytes.subarray(at)};
    }
}

/** The reply's text, from a stream's events. */
function streamedText(body: string): string {
    const events = dataEvents(body);
    expect(events.at(-1)).toBe("[DONE]");
    return events.slice(0, -1).map((event) => (JSON.parse(event) as {choices: Array<{delta: {content?: string}}>}).choices[0]?.delta.content ?? "").join("");
}

/** Whether `bytes` hold `count` whole chunked responses. */
function holdsResponses(count: number) {
    return (bytes: Buffer) => bytes.toString("latin1").split("\r\n0\r\n\r\n").length > count;
}

describe("a stream's bytes on the wire", () => {
    it("is one well-formed chunk per event over HTTP/1.1, sizes in bytes", async () => {
        const port = await listen();
        const bytes = await rawExchange(port, rawRequest("1.1", chatRequest({stream: true})), holdsResponses(1));
        const response = takeChunkedResponse(bytes);
        expect(streamedText(response.body)).toBe(pieces.join(""));
        expect(response.rest.length).toBe(0);
        // Role chunk, a chunk per piece, the finish chunk, [DONE], then the empty last chunk.
        expect(bytes.toString("latin1").match(/\r\n[0-9a-f]+\r\ndata: /g)?.length).toBe(pieces.length + 3);
    });

    it("answers two pipelined streams in order, the second's events held until the first has ended", async () => {
        // Both generations stream their pieces, then wait: the second's events are written while
        // the first still holds the connection, so Node must hold them (they go through res.write).
        let finish!: () => void;
        const port = await listen({pieces, busyUntil: new Promise<void>((resolve) => finish = resolve)});
        const second = chatRequest({stream: true, messages: [{role: "user", content: "again"}]});
        const bytes = await rawExchange(port, rawRequest("1.1", chatRequest({stream: true})) + rawRequest("1.1", second), (received) => {
            // The first's last piece is in: a moment more for the second's to be written, then both end.
            if (received.toString("utf8").includes(pieces.at(-1)!))
                setTimeout(finish, 20);
            return holdsResponses(2)(received);
        });
        const first = takeChunkedResponse(bytes);
        const next = takeChunkedResponse(first.rest);
        expect(streamedText(first.body)).toBe(pieces.join(""));
        expect(streamedText(next.body)).toBe(pieces.join(""));
        expect(next.rest.length).toBe(0);
    });

    it("is the events' bytes unframed over HTTP/1.0, ended by closing the connection", async () => {
        const port = await listen();
        const bytes = await rawExchange(port, rawRequest("1.0", chatRequest({stream: true})), () => false);
        const text = bytes.toString("utf8");
        const head = text.slice(0, text.indexOf("\r\n\r\n")).toLowerCase();
        expect(head).not.toContain("transfer-encoding");
        expect(streamedText(text.slice(text.indexOf("\r\n\r\n") + 4))).toBe(pieces.join(""));
    });
});
