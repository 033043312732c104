// A refused request's client that writes everything before it reads still reads its answer, not a reset.
import http from "node:http";
import net, {type AddressInfo} from "node:net";
import {afterEach, describe, expect, it} from "vitest";
import {openAiErrors} from "../../src/api/openai-shared/openAiErrors.js";
import {answerMalformedRequests} from "../../src/http/malformedRequest.js";
import {createLogger} from "../../src/logger.js";
import {chatRequest, createTestApp, errorOf} from "./support/testApp.js";

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
}));

async function listen(): Promise<number> {
    server = http.createServer(createTestApp().app);
    answerMalformedRequests(server, createLogger("silent"), openAiErrors);
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
}

/**
 * As Python's http.client and requests do: write the whole request, and only then read. Resolves to
 * what came back, or to the socket error that cut it (a reset while writing, or before reading).
 */
async function writeAllThenRead(port: number, request: Buffer): Promise<{text: string, error?: string}> {
    const socket = net.connect(port, "127.0.0.1");
    socket.pause();
    const received: Buffer[] = [];
    return new Promise((resolve) => {
        socket.once("error", (error: NodeJS.ErrnoException) => resolve({text: Buffer.concat(received).toString("utf8"), error: error.code}));
        socket.write(request, () => {
            socket.on("data", (chunk: Buffer) => received.push(chunk));
            socket.once("end", () => {
                socket.destroy();
                resolve({text: Buffer.concat(received).toString("utf8")});
            });
            socket.resume();
        });
    });
}

function statusAndBody(text: string): {status: number, head: string, body: unknown} {
    const [head = "", body = ""] = text.split("\r\n\r\n");
    return {status: Number(head.split(" ")[1]), head: head.toLowerCase(), body: JSON.parse(body)};
}

const tenMegabytes = Buffer.alloc(10 * 1024 ** 2, "a");

describe("a refused request whose client is still writing", () => {
    it("a 10 MB body (over the 8 MB limit) gets its 413 in the envelope, and the connection then serves the next request", async () => {
        const port = await listen();
        const next = JSON.stringify(chatRequest());
        const reply = await writeAllThenRead(port, Buffer.concat([
            Buffer.from(`POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${tenMegabytes.length}\r\n\r\n`),
            tenMegabytes,
            Buffer.from(`POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n` +
                `Content-Length: ${Buffer.byteLength(next)}\r\n\r\n${next}`)
        ]));
        expect(reply.error).toBeUndefined();
        const [first, second] = reply.text.split(/(?=HTTP\/1\.1 )/);
        const refused = statusAndBody(first!);
        expect(refused.status).toBe(413);
        expect(errorOf(refused.body)).toMatchObject({code: "payload_too_large"});
        expect(second).toMatch(/^HTTP\/1\.1 200/);
    });

    it("a 10 MB chunked body gets its 413 in the envelope", async () => {
        const port = await listen();
        const chunks = [];
        for (let offset = 0; offset < tenMegabytes.length; offset += 1024 ** 2)
            chunks.push(Buffer.from(`100000\r\n`), tenMegabytes.subarray(offset, offset + 1024 ** 2), Buffer.from("\r\n"));
        const reply = await writeAllThenRead(port, Buffer.concat([
            Buffer.from("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"),
            ...chunks, Buffer.from("0\r\n\r\n")
        ]));
        expect(reply.error).toBeUndefined();
        const refused = statusAndBody(reply.text);
        expect(refused.status).toBe(413);
        expect(errorOf(refused.body)).toMatchObject({code: "payload_too_large"});
    });

    it("a 1 MB header gets its 431 in the envelope, and the connection closes once the client is done", async () => {
        const port = await listen();
        const reply = await writeAllThenRead(port, Buffer.from(
            `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(1024 ** 2)}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`));
        expect(reply.error).toBeUndefined();
        const refused = statusAndBody(reply.text);
        expect(refused.status).toBe(431);
        expect(refused.head).toContain("connection: close");
        expect(errorOf(refused.body)).toMatchObject({code: "headers_too_large"});
    });

    it("a 401 before a large body was read leaves it to be read too", async () => {
        server = http.createServer(createTestApp({apiKeys: ["secret"]}).app);
        await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
        const body = Buffer.alloc(4 * 1024 ** 2, "a");
        const reply = await writeAllThenRead((server.address() as AddressInfo).port, Buffer.concat([
            Buffer.from(`POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`), body]));
        expect(reply.error).toBeUndefined();
        expect(statusAndBody(reply.text).status).toBe(401);
    });
});
