// Transport-level failures: each one in OpenAI's envelope, and the server keeps serving after it.
import {once} from "node:events";
import http from "node:http";
import type {AddressInfo} from "node:net";
import request from "supertest";
import {afterEach, describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf} from "./support/testApp.js";

describe("transport errors", () => {
    const t = createTestApp({bodyLimit: "200b"});

    afterEach(async () => {
        // The next client is served normally, and no sequence was left leased.
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest());
        expect(res.status).toBe(200);
        expect(res.body.choices[0].message.content).toBe("Hello there!");
        expect(t.model.activeLeases).toBe(0);
    });

    it("malformed JSON → 400 invalid_json", async () => {
        const res = await request(t.app).post("/v1/chat/completions").set("Content-Type", "application/json").send('{"model": ');
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", code: "invalid_json"});
    });

    it("a JSON body that is not an object → 400", async () => {
        const res = await request(t.app).post("/v1/chat/completions").set("Content-Type", "application/json").send("[1, 2]");
        expect(res.status).toBe(400);
        expect(errorOf(res.body).message).toMatch(/JSON object/);
    });

    it("a non-JSON Content-Type → 415", async () => {
        const res = await request(t.app).post("/v1/chat/completions").set("Content-Type", "application/xml").send("<chat/>");
        expect(res.status).toBe(415);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", code: "unsupported_media_type"});
        expect(errorOf(res.body).message).toContain("application/xml");
    });

    it("a body that is not the gzip its Content-Encoding claims → 400", async () => {
        const res = await request(t.app).post("/v1/chat/completions").set("Content-Type", "application/json").set("Content-Encoding", "gzip")
            .send(JSON.stringify(chatRequest()));
        expect(res.status).toBe(400);
        expect(errorOf(res.body).type).toBe("invalid_request_error");
    });

    it("a malformed percent-escape in the URL → 400", async () => {
        const res = await request(t.app).get("/v1/models/qwen%E0%A4%A");
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", code: "invalid_request"});
    });

    it("a body declared over the limit → 413 at once, before the body has arrived, and the connection closes", async () => {
        const server = http.createServer(t.app).listen(0, "127.0.0.1");
        await once(server, "listening");
        try {
            const req = http.request({port: (server.address() as AddressInfo).port, host: "127.0.0.1", method: "POST", path: "/v1/chat/completions",
                headers: {"Content-Type": "application/json", "Content-Length": "100000000"}});
            req.write("{\"model\": ");
            const [res] = await once(req, "response") as [http.IncomingMessage];
            let body = "";
            for await (const chunk of res)
                body += chunk;
            expect(res.statusCode).toBe(413);
            expect(res.headers.connection).toBe("close");
            expect(errorOf(JSON.parse(body))).toMatchObject({code: "payload_too_large", message: expect.stringContaining("200 bytes")});
            req.destroy();
        } finally {
            server.close();
        }
    });

    it("a body over the configured limit → 413", async () => {
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({messages: [{role: "user", content: "x".repeat(500)}]}));
        expect(res.status).toBe(413);
        expect(errorOf(res.body)).toMatchObject({code: "payload_too_large"});
        expect(errorOf(res.body).message).toContain("200 bytes");
    });

    it("an unknown route → 404 in the envelope, not an HTML page", async () => {
        const res = await request(t.app).get("/v1/embeddingz");
        expect(res.status).toBe(404);
        expect(res.headers["content-type"]).toMatch(/application\/json/);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", code: "unknown_url"});
        expect(errorOf(res.body).message).toContain("/v1/embeddingz");
    });

    it("a wrong method on a known path → 405 with Allow, in the envelope", async () => {
        const res = await request(t.app).get("/v1/chat/completions");
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe("POST");
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", code: "method_not_allowed"});
        expect(errorOf(res.body).message).toContain("GET is not allowed on /v1/chat/completions");
    });

    it("HEAD on a POST route → 405 with Allow: POST", async () => {
        const res = await request(t.app).head("/v1/completions");
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe("POST");
    });

    it.each([["delete", "/v1/models", "GET, HEAD"], ["put", "/v1/responses/resp_1", "GET, HEAD, DELETE"], ["post", "/health", "GET, HEAD"],
        ["patch", "/v1/messages", "POST"]])("%s %s → 405, Allow: %s", async (method, path, allow) => {
        const res = await (request(t.app) as unknown as Record<string, (path: string) => request.Test>)[method]!(path);
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe(allow);
    });

    it("/v1/messages answers a wrong method in Anthropic's envelope", async () => {
        const res = await request(t.app).get("/v1/messages");
        expect(res.status).toBe(405);
        expect(res.body).toMatchObject({type: "error", error: {type: "invalid_request_error"}});
    });

    it("a full queue → 503 server_busy with Retry-After", async () => {
        t.model.script = {pieces: [], busy: true};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest());
        t.model.script = {pieces: ["Hello", " there", "!"]};
        expect(res.status).toBe(503);
        expect(res.headers["retry-after"]).toBe("1");
        expect(errorOf(res.body)).toMatchObject({type: "server_error", code: "server_busy"});
    });
});
