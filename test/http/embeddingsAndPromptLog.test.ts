import http from "node:http";
import type {AddressInfo} from "node:net";
import request from "supertest";
import {describe, expect, it, vi} from "vitest";
import {createTestApp, errorOf} from "./support/testApp.js";

describe("POST /v1/embeddings limits", () => {
    it("takes up to 2048 inputs, and refuses more with a 400 that says so; one long token-id input is not many inputs", async () => {
        const t = createTestApp();
        const ok = await request(t.app).post("/v1/embeddings").send({model: "embedder", input: Array(2048).fill("hi"), encoding_format: "float"});
        expect(ok.status).toBe(200);
        expect(ok.body.data).toHaveLength(2048);

        const tooMany = await request(t.app).post("/v1/embeddings").send({model: "embedder", input: Array(2049).fill([1, 2])});
        expect(tooMany.status).toBe(400);
        expect(errorOf(tooMany.body)).toMatchObject({param: "input", message: expect.stringContaining("at most 2048 entries")});

        const longTokens = await request(t.app).post("/v1/embeddings").send({model: "embedder", input: Array(5000).fill(7), encoding_format: "float"});
        expect(longTokens.status).toBe(200);
    });
});

describe("--log-prompts", () => {
    it("logs a chat request's messages and a completion's prompt and suffix only when asked", async () => {
        for (const logPrompts of [false, true]) {
            const logLines: string[] = [];
            const t = createTestApp({logPrompts, logLines});
            await request(t.app).post("/v1/chat/completions").send({model: "tiny-chat", messages: [{role: "user", content: "SECRET-CHAT"}]});
            await request(t.app).post("/v1/completions").send({model: "tiny-chat", prompt: "SECRET-PROMPT", max_tokens: 2});
            const log = logLines.join("");
            expect(log.includes("SECRET-CHAT")).toBe(logPrompts);
            expect(log.includes("SECRET-PROMPT")).toBe(logPrompts);
        }
    });
});

describe("the request log line", () => {
    it("names the error a request was answered with, a refusal or a failure mid-stream", async () => {
        const logLines: string[] = [];
        const t = createTestApp({logLines});
        const requestLines = () => logLines.map((line) => JSON.parse(line)).filter((line) => line.event === "request");
        await request(t.app).post("/v1/chat/completions").send({model: "tiny-chat", messages: [{role: "user", content: "word ".repeat(70)}]});
        await request(t.app).post("/v1/chat/completions").send({model: "tiny-chat", messages: [{role: "user", content: "Hi"}]});
        t.model.script = {pieces: ["Hel"], failWith: new Error("boom")};
        await request(t.app).post("/v1/chat/completions").send({model: "tiny-chat", messages: [{role: "user", content: "Hi"}], stream: true}).buffer(true);
        await new Promise((resolve) => setImmediate(resolve));
        expect(requestLines().map((line) => [line.status, line.error])).toEqual([[400, "context_length_exceeded"], [200, undefined], [200, "internal_error"]]);
    });
});

describe("the request log line of a client that left", () => {
    it("says 499 when the client left before any reply was sent, and the reply's status once it was", async () => {
        const logLines: string[] = [];
        const t = createTestApp({logLines});
        const server = http.createServer(t.app);
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        try {
            const {port} = server.address() as AddressInfo;
            const leave = async (body: Record<string, unknown>, after: "sent" | "response") => {
                const released = t.model.nextRelease();
                const req = http.request({port, host: "127.0.0.1", method: "POST", path: "/v1/chat/completions", headers: {"content-type": "application/json"}});
                req.on("error", () => {});
                req.end(JSON.stringify(body));
                if (after === "response")
                    await new Promise((resolve) => req.on("response", (response) => response.once("data", resolve)));
                else {
                    const generations = t.model.generations.length;
                    await vi.waitFor(() => expect(t.model.generations.length).toBe(generations + 1));
                }
                req.destroy();
                await released;
            };
            t.model.script = {pieces: ["Hello"], hangUntilAborted: true};
            await leave({model: "tiny-chat", messages: [{role: "user", content: "Hi"}]}, "sent");
            await leave({model: "tiny-chat", messages: [{role: "user", content: "Hi"}], stream: true}, "response");
            const lines = logLines.map((line) => JSON.parse(line)).filter((line) => line.event === "request");
            expect(lines.map((line) => [line.status, line.aborted])).toEqual([[499, true], [200, true]]);
        } finally {
            await new Promise((resolve) => server.close(resolve));
        }
    });
});

