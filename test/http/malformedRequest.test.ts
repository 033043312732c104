// Requests Node's HTTP parser refuses before Express sees them still get OpenAI's error envelope.
import http from "node:http";
import type {AddressInfo} from "node:net";
import {afterEach, describe, expect, it} from "vitest";
import {openAiErrors} from "../../src/api/openai-shared/openAiErrors.js";
import {answerMalformedRequests} from "../../src/http/malformedRequest.js";
import {createLogger} from "../../src/logger.js";
import {rawExchange} from "./support/rawSocket.js";
import {createTestApp} from "./support/testApp.js";

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
}));

/** Sends raw bytes and resolves to everything the server wrote before it ended the connection. */
async function exchange(bytes: string, configure: (server: http.Server) => void = () => {}): Promise<{status: number, headers: string, body: string}> {
    server = http.createServer(createTestApp().app);
    configure(server);
    answerMalformedRequests(server, createLogger("silent"), openAiErrors);
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const text = (await rawExchange((server.address() as AddressInfo).port, bytes)).toString("utf8");
    const [head = "", body = ""] = text.split("\r\n\r\n");
    return {status: Number(head.split(" ")[1]), headers: head.toLowerCase(), body};
}

function expectEnvelope(body: string, code: string): void {
    const parsed = JSON.parse(body) as {error: Record<string, unknown>};
    expect(parsed.error).toMatchObject({type: "invalid_request_error", code, param: null});
    expect(parsed.error.message).toEqual(expect.any(String));
}

describe("a request Node's HTTP parser refuses", () => {
    it("answers headers over the limit with 431 and the envelope, then closes", async () => {
        const reply = await exchange(`GET /v1/models HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
        expect(reply.status).toBe(431);
        expect(reply.headers).toContain("content-type: application/json");
        expect(reply.headers).toContain("connection: close");
        expectEnvelope(reply.body, "headers_too_large");
    });

    it("answers bytes that are not HTTP with 400 and the envelope", async () => {
        const reply = await exchange("HELLO THERE\r\n\r\n");
        expect(reply.status).toBe(400);
        expectEnvelope(reply.body, "malformed_request");
        expect(JSON.parse(reply.body).error.message).toMatch(/not valid HTTP/);
    });

    it("answers a body that stalls past the request timeout with 408", async () => {
        const reply = await exchange("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", (created) => {
            created.requestTimeout = 300;
            // Node checks the timeout on this interval; the default (30 s) would outlast the test.
            created.headersTimeout = 300;
            (created as {connectionsCheckingInterval?: number}).connectionsCheckingInterval = 50;
        });
        expect(reply.status).toBe(408);
        expectEnvelope(reply.body, "request_timeout");
    });

    it("answers CONNECT (a tunnel through a proxy, which chatserve is not) with 400 and the envelope", async () => {
        const reply = await exchange("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
        expect(reply.status).toBe(400);
        expect(reply.headers).toContain("connection: close");
        expectEnvelope(reply.body, "method_not_supported");
    });

    it("leaves a well-formed request on the same server to Express", async () => {
        const reply = await exchange("GET /v1/models HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        expect(reply.status).toBe(200);
        expect(JSON.parse(reply.body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n$/g, ""))).toMatchObject({object: "list"});
    });
});
