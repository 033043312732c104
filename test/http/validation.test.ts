// Request validation and model lookup: the right status, code and param, and the server keeps serving.
import request from "supertest";
import {afterEach, describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf} from "./support/testApp.js";

describe("chat request validation", () => {
    const t = createTestApp();
    const post = (body: Record<string, unknown>) => request(t.app).post("/v1/chat/completions").send(body);

    afterEach(async () => {
        expect((await post(chatRequest())).status).toBe(200);
        expect(t.model.activeLeases).toBe(0);
    });

    it("missing model → 400 missing_required_parameter", async () => {
        const res = await post({messages: [{role: "user", content: "hi"}]});
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "model", code: "missing_required_parameter"});
    });

    it("empty messages → 400 naming messages", async () => {
        const res = await post(chatRequest({messages: []}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", param: "messages"});
    });

    it("unknown role → 400 naming the message's role and the valid roles", async () => {
        const res = await post(chatRequest({messages: [{role: "wizard", content: "hi"}]}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body).param).toBe("messages[0].role");
        expect(errorOf(res.body).message).toMatch(/system, developer, user, assistant, tool/);
    });

    it("a schema nested thousands of levels deep → 400, not a stack overflow", async () => {
        const schema = "{\"type\":\"object\",\"properties\":{\"a\":".repeat(3000) + "{\"type\":\"string\"}" + "}}".repeat(3000);
        const body = JSON.stringify(chatRequest()).replace(/}$/, `,"tools":[{"type":"function","function":{"name":"f","parameters":${schema}}}]}`);
        const res = await request(t.app).post("/v1/chat/completions").set("Content-Type", "application/json").send(body);
        expect(res.status).toBe(400);
        expect(errorOf(res.body).message).toMatch(/levels deep/);
    });

    it("temperature 3 → 400 param temperature", async () => {
        const res = await post(chatRequest({temperature: 3}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "temperature", code: "invalid_value"});
    });

    it("65 stop sequences → 400 saying that 64 is the most", async () => {
        const res = await post({model: "tiny-chat", messages: [{role: "user", content: "hi"}], stop: Array.from({length: 65}, (_, index) => `s${index}`)});
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "stop", message: expect.stringContaining("at most 64 sequences")});
    });

    it("stop sequences of more than 16,384 characters together → 400 naming stop, one long string or many", async () => {
        for (const stop of ["x".repeat(16_385), Array.from({length: 64}, () => "y".repeat(300)), Array.from({length: 3}, () => "z".repeat(8000))]) {
            const res = await post(chatRequest({stop}));
            expect(res.status).toBe(400);
            expect(errorOf(res.body)).toMatchObject({param: "stop", message: expect.stringContaining("at most 16384 characters in all")});
        }
        expect((await post(chatRequest({stop: Array.from({length: 64}, () => "w".repeat(256))}))).status).toBe(200);
    });

    it("n over 128 → 400 naming n; logit_bias out of range → 400 naming it", async () => {
        const res = await post(chatRequest({n: 129}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "n", code: "invalid_value"});
        expect(errorOf(res.body).message).toContain("at most 128");
        const bias = await post(chatRequest({logit_bias: {"12": 150}}));
        expect(bias.status).toBe(400);
        expect(errorOf(bias.body).param).toContain("logit_bias");
    });

    it("image input → 400 image_input_not_supported", async () => {
        const res = await post(chatRequest({messages: [{role: "user", content: [{type: "image_url", image_url: {url: "data:,"}}]}]}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "messages[0].content[0].image_url.url", code: "image_input_not_supported"});
        expect(errorOf(res.body).message).toMatch(/does not take image input \(no vision projector/);
    });

    it("unknown model → 404 model_not_found", async () => {
        const res = await post(chatRequest({model: "no-such-model"}));
        expect(res.status).toBe(404);
        expect(errorOf(res.body)).toMatchObject({param: "model", code: "model_not_found"});
    });

    it("unavailable model → 400 model_unavailable with the reason", async () => {
        const res = await post(chatRequest({model: "broken"}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "model", code: "model_unavailable"});
        expect(errorOf(res.body).message).toContain("bad magic");
    });

    it("a model that cannot chat → 400 unsupported_model", async () => {
        const res = await post(chatRequest({model: "embedder"}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "model", code: "unsupported_model"});
    });

    it("prompt plus max_tokens over the context → 200: the reply gets the room that is left", async () => {
        const res = await post(chatRequest({max_tokens: 32_000}));
        expect(res.status).toBe(200);
        const {options} = t.model.generations.at(-1)!;
        expect(options.maxTokens).toBe(t.model.contextLength - res.body.usage.prompt_tokens);
    });

    it("a prompt that alone fills the context → 400 context_length_exceeded", async () => {
        const res = await post(chatRequest({messages: [{role: "user", content: "word ".repeat(70)}]}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body).code).toBe("context_length_exceeded");
    });
});

describe("legacy completions prompt forms", () => {
    const t = createTestApp();
    const post = (prompt: unknown) => request(t.app).post("/v1/completions").send({model: "tiny-chat", prompt, max_tokens: 1});

    it.each([
        ["a text", "the cat", 1],
        ["texts", ["the cat", "a dog"], 2],
        ["token ids", [1, 2, 3], 1],
        ["lists of token ids", [[1, 2], [3]], 2]
    ])("takes %s, one choice per prompt", async (_form, prompt, choices) => {
        const res = await post(prompt);
        expect(res.status).toBe(200);
        expect(res.body.choices).toHaveLength(choices);
    });

    it.each([
        ["an empty array", []],
        ["an empty list of token ids", [[]]],
        ["a negative token id", [1, -2]],
        ["texts and ids mixed", ["the cat", 2]]
    ])("refuses %s with a 400 naming prompt (or the entry at fault)", async (_form, prompt) => {
        const res = await post(prompt);
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", param: expect.stringMatching(/^prompt/), code: expect.any(String)});
    });

    // One small request must not hold a sequence for hours, nor the event loop for every token.
    it("takes up to 2048 prompts and 1024 stop sequences, and refuses more with a 400 that says so", async () => {
        for (const prompt of [Array(2049).fill("a"), Array(2049).fill([1])]) {
            const res = await post(prompt);
            expect(res.status).toBe(400);
            expect(errorOf(res.body)).toMatchObject({param: "prompt", message: expect.stringContaining("at most 2048 entries")});
        }
        const stops = (count: number) => request(t.app).post("/v1/completions")
            .send({model: "tiny-chat", prompt: "the cat", max_tokens: 1, stop: Array.from({length: count}, (_, index) => `s${index}`)});
        expect((await stops(1024)).status).toBe(200);
        const tooMany = await stops(1025);
        expect(tooMany.status).toBe(400);
        expect(errorOf(tooMany.body)).toMatchObject({param: "stop", message: expect.stringContaining("at most 1024 sequences")});
        // 1,024 sequences of 8,000 characters made every token cost 257 ms.
        const huge = await request(t.app).post("/v1/completions")
            .send({model: "tiny-chat", prompt: "the cat", max_tokens: 1, stop: Array.from({length: 1024}, (_, index) => `${index}`.padEnd(8000, "s"))});
        expect(huge.status).toBe(400);
        expect(errorOf(huge.body)).toMatchObject({param: "stop", message: expect.stringContaining("at most 16384 characters in all (these hold 8192000)")});
        const notText = await request(t.app).post("/v1/completions").send({model: "tiny-chat", prompt: "the cat", stop: ["a", 1]});
        expect(errorOf(notText.body)).toMatchObject({param: "stop[1]", message: expect.stringContaining("a stop sequence is a string")});
        const notAPrompt = await post([null]);
        expect(errorOf(notAPrompt.body)).toMatchObject({param: "prompt[0]", message: expect.stringContaining("must be a string, an array of strings")});
    });
});
