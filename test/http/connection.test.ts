// The connection after a reply: kept for the next request, or closed when the client asked.
import http from "node:http";
import net from "node:net";
import type {AddressInfo} from "node:net";
import {afterEach, describe, expect, it} from "vitest";
import {chatRequest, createTestApp} from "./support/testApp.js";

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
}));

/** Sends one raw HTTP/1.1 request and resolves to the response's head and whether the server ended the socket. */
async function rawRequest(body: Record<string, unknown>, connection: "close" | "keep-alive"): Promise<{head: string, ended: boolean}> {
    server = http.createServer(createTestApp().app).listen(0, "127.0.0.1");
    await new Promise((resolve) => server!.once("listening", resolve));
    const {port} = server.address() as AddressInfo;
    const json = JSON.stringify(body);
    const socket = net.connect(port, "127.0.0.1");
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Connection: ${connection}\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
    let text = "";
    socket.on("data", (bytes) => text += bytes.toString("utf8"));
    // A streamed reply is chunked: it is whole once its last, empty chunk has arrived.
    const answered = () => text.includes("\r\n0\r\n\r\n");
    const ended = await new Promise<boolean>((resolve) => {
        socket.once("end", () => resolve(true));
        socket.on("data", () => {
            // A kept connection stays open: once the reply is whole, that is the answer.
            if (answered() && connection === "keep-alive")
                resolve(false);
        });
    });
    socket.destroy();
    return {head: text.slice(0, text.indexOf("\r\n\r\n")).toLowerCase(), ended};
}

describe("the connection after a reply", () => {
    it("closes after a stream when the client sent Connection: close", async () => {
        const {head, ended} = await rawRequest(chatRequest({stream: true}), "close");
        expect(head).toContain("content-type: text/event-stream");
        expect(head).toContain("connection: close");
        expect(ended).toBe(true);
    });

    it("stays open after a stream for a keep-alive client", async () => {
        const {head, ended} = await rawRequest(chatRequest({stream: true}), "keep-alive");
        expect(head).toContain("connection: keep-alive");
        expect(ended).toBe(false);
    });

    it("closes after a non-streamed reply when the client sent Connection: close", async () => {
        const {head, ended} = await rawRequest(chatRequest(), "close");
        expect(head).toContain("connection: close");
        expect(ended).toBe(true);
    });
});
