// A client that stops reading a stream: the generation pauses (nothing more is pulled from it)
// instead of the server buffering the whole reply, and a client that reads nothing for the stall
// time is dropped, its sequence freed. A reply sent whole is bounded instead, with a 400.
import http from "node:http";
import net from "node:net";
import type {AddressInfo} from "node:net";
import request from "supertest";
import {afterEach, describe, expect, it} from "vitest";
import {maxJsonReplyBytes} from "../../src/http/replySizeGuard.js";
import {settled} from "./support/rawSocket.js";
import {chatRequest, createTestApp, errorOf, type TestApp} from "./support/testApp.js";

const pieceBytes = 1024 * 1024;

/** Pieces pulled lazily, counted as the generation asks for them. */
function countedPieces(count: number): {pieces: string[], pulled: () => number} {
    let pulled = 0;
    const piece = "x".repeat(pieceBytes);
    const pieces = Object.assign([] as string[], {
        * [Symbol.iterator]() {
            for (; pulled < count;) {
                pulled++;
                yield piece;
            }
        }
    });
    return {pieces, pulled: () => pulled};
}

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
}));

async function listen(t: TestApp): Promise<number> {
    server = http.createServer(t.app);
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
}

/** Sends a streamed chat request on a raw socket and stops reading once the headers are in. */
async function pausedStream(port: number): Promise<net.Socket> {
    const body = JSON.stringify(chatRequest({stream: true, max_tokens: 60}));
    const socket = net.connect(port, "127.0.0.1", () => socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
    await new Promise<void>((resolve) => socket.once("data", () => {
        socket.pause();
        resolve();
    }));
    return socket;
}

describe("a stream whose client stops reading", () => {
    it("pauses its generation, then goes on to the end once the client reads again", async () => {
        const t = createTestApp();
        const {pieces, pulled} = countedPieces(50);
        t.model.script = {pieces};
        const socket = await pausedStream(await listen(t));
        const pausedAt = await settled(pulled);
        // 50 MiB were asked for; what was pulled is what the socket's buffers took, and a little more.
        expect(pausedAt).toBeLessThan(50);
        expect(t.model.activeLeases).toBe(1);

        let tail = "";
        socket.resume();
        await new Promise<void>((resolve) => socket.on("data", (chunk: Buffer) => {
            tail = (tail + chunk.toString("latin1")).slice(-64);
            if (tail.includes("data: [DONE]"))
                resolve();
        }));
        expect(pulled()).toBe(50);
        socket.destroy();
    });

    it("is dropped when it reads nothing for the stall time, and its sequence is freed", async () => {
        const logLines: string[] = [];
        const t = createTestApp({streamStallMs: 300, logLines});
        t.model.script = {pieces: countedPieces(50).pieces};
        const socket = await pausedStream(await listen(t));
        socket.on("error", () => {});
        expect(t.model.activeLeases).toBe(1);
        // The server drops it, having waited 300 ms with more than the high-water mark unread:
        // the abort ends the generation and frees the sequence.
        while (t.model.activeLeases > 0)
            await new Promise((resolve) => setTimeout(resolve, 50));
        expect(t.model.generations[0]!.signal.aborted).toBe(true);
        // The operator's log says why the stream ended.
        const dropped = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.event === "stream_dropped");
        expect(dropped).toMatchObject({level: 40, stallMs: 300, waitingBytes: expect.any(Number)});
        expect(dropped!.waitingBytes as number).toBeGreaterThan(64 * 1024);
        socket.destroy();
        expect((await request(t.app).post("/v1/chat/completions").send(chatRequest({max_tokens: 2}))).status).toBe(200);
    });
});

describe("a reply sent whole", () => {
    it("past its size bound, is a 400 reply_too_large and its generation stops", async () => {
        const t = createTestApp();
        const {pieces, pulled} = countedPieces(50);
        t.model.script = {pieces};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({max_tokens: 60}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({code: "reply_too_large", message: expect.stringContaining("stream it")});
        expect(pulled()).toBe(Math.floor(maxJsonReplyBytes / pieceBytes) + 1);
        expect(t.model.activeLeases).toBe(0);
    });
    it("is refused up front, before any token, when its log probabilities alone would pass the bound at its token limit", async () => {
        const t = createTestApp();
        // 128 × 4096 × (1 + 20) entries of 64 bytes: 704 MiB of log probabilities.
        const chat = await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({n: 128, max_completion_tokens: 4096, logprobs: true, top_logprobs: 20}));
        expect(chat.status).toBe(400);
        expect(errorOf(chat.body)).toMatchObject({param: "max_completion_tokens", message: expect.stringMatching(/n \(128\) × max_completion_tokens \(4096\) × top_logprobs \(20\).*stream it/)});
        const single = await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({max_tokens: 30_000, logprobs: true, top_logprobs: 20}));
        expect(errorOf(single.body)).toMatchObject({param: "max_tokens", message: expect.stringContaining("top_logprobs (20)")});
        const legacy = await request(t.app).post("/v1/completions")
            .send({model: "tiny-chat", prompt: "the cat", n: 128, max_tokens: 8192, logprobs: 5});
        expect(legacy.status).toBe(400);
        expect(errorOf(legacy.body)).toMatchObject({param: "max_tokens", message: expect.stringContaining("logprobs (5)")});
        expect(t.model.generations).toHaveLength(0);

        // The same asked as a stream, or without log probabilities, or within the bound, goes ahead.
        for (const extra of [
            {n: 128, max_completion_tokens: 4096, logprobs: true, top_logprobs: 20, stream: true},
            {n: 128, max_completion_tokens: 4096},
            {n: 2, max_tokens: 4096, logprobs: true, top_logprobs: 20}
        ])
            expect((await request(t.app).post("/v1/chat/completions").send(chatRequest(extra))).status).toBe(200);
        expect(t.model.activeLeases).toBe(0);
    });
});
