import request from "supertest";
import {describe, expect, it} from "vitest";
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
        await request(t.app).post("/v1/chat/completions").send({model: "tiny-chat", messages: [{role: "user", content: "Hi"}], max_tokens: 5000});
        await request(t.app).post("/v1/chat/completions").send({model: "tiny-chat", messages: [{role: "user", content: "Hi"}]});
        t.model.script = {pieces: ["Hel"], failWith: new Error("boom")};
        await request(t.app).post("/v1/chat/completions").send({model: "tiny-chat", messages: [{role: "user", content: "Hi"}], stream: true}).buffer(true);
        await new Promise((resolve) => setImmediate(resolve));
        expect(requestLines().map((line) => [line.status, line.error])).toEqual([[400, "context_length_exceeded"], [200, undefined], [200, "internal_error"]]);
    });
});
