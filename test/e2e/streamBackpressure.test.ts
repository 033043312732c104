import net from "node:net";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../fixtures/gguf/tinyModels.js";
import {settled} from "../http/support/rawSocket.js";
import {startTestServer, type TestServer} from "./support/testServer.js";

/**
 * A real server and a raw socket client that stops reading a long stream (16 choices of up to 1,500 tokens
 * with 20 top log probabilities: megabytes of events, more than the kernel's socket buffers take).
 * What the server holds for that client is read off its side of the connection: every write to it
 * is watched, and the bytes waiting in it stay near the stream's high-water mark (64 KiB) instead
 * of growing with the generation. Meanwhile another request is served, and when the client goes,
 * its sequence is released.
 */
describe("a real stream whose client stops reading", () => {
    let server: TestServer;
    const model = "tiny-chat";
    const write = net.Socket.prototype.write;
    /** The server's side of the watched connection: bytes handed to it, and the most waiting in it at once. */
    const watched = {port: -1, handed: 0, mostWaiting: 0};

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 2, ctxSize: 2048});
        net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<typeof write>) {
            const result = write.apply(this, args);
            if (this.remotePort === watched.port) {
                const chunk = args[0] as string | Uint8Array;
                watched.handed += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
                watched.mostWaiting = Math.max(watched.mostWaiting, this.writableLength);
            }
            return result;
        } as typeof write;
    });
    afterAll(async () => {
        net.Socket.prototype.write = write;
        await server?.stop();
    });

    const holds = () => server.registry.occupancy().find((entry) => entry.id === model)?.holds ?? 0;

    it("pauses its generation with little held for it, serves others, and frees the sequence when the client goes", async () => {
        const body = JSON.stringify({
            model, messages: [{role: "user", content: "Tell me a long story about the cat."}], stream: true,
            n: 16, max_tokens: 1500, logprobs: true, top_logprobs: 20, temperature: 1, seed: 7
        });
        const socket = net.connect(server.port, "127.0.0.1");
        socket.on("error", () => {});
        await new Promise<void>((resolve) => socket.once("connect", resolve));
        watched.port = socket.localPort!;
        socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        await new Promise<void>((resolve) => socket.once("data", () => {
            socket.pause();
            resolve();
        }));

        const handed = await settled(() => watched.handed, 200);
        // The kernel took some megabytes; past them, the server held at most its high-water mark and one event.
        expect(handed).toBeGreaterThan(1024 * 1024);
        expect(watched.mostWaiting).toBeLessThan(512 * 1024);
        expect(holds()).toBe(1);

        const other = await fetch(`${server.url}/chat/completions`, {
            method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({model, messages: [{role: "user", content: "hi"}], max_tokens: 2})
        });
        expect(other.status).toBe(200);
        expect(holds()).toBe(1);

        socket.destroy();
        while (holds() > 0)
            await new Promise((resolve) => setTimeout(resolve, 50));
        expect(holds()).toBe(0);
    }, 120_000);
});
