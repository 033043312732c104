// A non-streamed reply, in the shape the official SDKs parse.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {CONTEXT_LENGTH} from "../../support/fakeEngine.js";
import {chatRequest, createTestApp, MODEL} from "../../support/testApp.js";

describe("POST /v1/chat/completions (not streamed)", () => {
    it("answers with a chat.completion", async () => {
        const t = createTestApp();
        const before = Math.floor(Date.now() / 1000);
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest());
        expect(res.status).toBe(200);
        expect(res.headers["content-type"]).toMatch(/application\/json/);

        const body = res.body;
        expect(body.id).toMatch(/^chatcmpl-[0-9a-f]+$/);
        expect(body.object).toBe("chat.completion");
        expect(Number.isInteger(body.created)).toBe(true);
        expect(body.created).toBeGreaterThanOrEqual(before);
        expect(body.created).toBeLessThan(1e11); // seconds, not milliseconds
        expect(body.model).toBe(MODEL);
        expect(body.choices).toHaveLength(1);
        expect(body.choices[0]).toMatchObject({
            index: 0,
            message: {role: "assistant", content: "Hello there!"},
            finish_reason: "stop"
        });
        // "Say hello": two prompt tokens in the double; three scripted pieces.
        expect(body.usage).toMatchObject({prompt_tokens: 2, completion_tokens: 3, total_tokens: 5});
        expect(t.model.activeLeases).toBe(0);
    });

    it("gives each reply its own id", async () => {
        const {app} = createTestApp();
        const a = await request(app).post("/v1/chat/completions").send(chatRequest());
        const b = await request(app).post("/v1/chat/completions").send(chatRequest());
        expect(a.body.id).not.toBe(b.body.id);
    });

    it("stops at max_tokens with finish_reason length", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({max_tokens: 2}));
        expect(res.body.choices[0]).toMatchObject({message: {content: "Hello there"}, finish_reason: "length"});
        expect(res.body.usage.completion_tokens).toBe(2);
    });

    it("passes OpenAI's defaults and the client's settings to the engine", async () => {
        const t = createTestApp();
        await request(t.app).post("/v1/chat/completions").send(chatRequest()).expect(200);
        await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({max_completion_tokens: 10, max_tokens: 20, temperature: 0, top_p: 0.5, seed: 7, stop: "END"})).expect(200);

        const [defaults, chosen] = t.model.generations.map((generation) => generation.options);
        expect(defaults).toEqual({
            maxTokens: CONTEXT_LENGTH - 2,
            stop: [],
            sampling: {temperature: 1, topP: 1, seed: expect.any(Number), presencePenalty: 0, frequencyPenalty: 0},
            format: {type: "text"}
        });
        expect(chosen).toMatchObject({maxTokens: 10, stop: ["END"], sampling: {temperature: 0, topP: 0.5, seed: 7}});
    });

    it("lets a reasoning model think unless chat_template_kwargs says not to, or the reply is constrained from its start", async () => {
        const t = createTestApp();
        const thinking = async (extra: Record<string, unknown>) => {
            await request(t.app).post("/v1/chat/completions").send(chatRequest(extra)).expect(200);
            return t.model.renderedThinking;
        };
        expect(await thinking({})).toBe(true);
        expect(await thinking({chat_template_kwargs: {enable_thinking: true}})).toBe(true);
        expect(await thinking({chat_template_kwargs: {enable_thinking: false}})).toBe(false);
        expect(await thinking({chat_template_kwargs: {thinking: false}})).toBe(false);
        expect(await thinking({response_format: {type: "json_object"}})).toBe(false);
    });

    it("accepts nulls and unknown fields the way real clients send them", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({temperature: null, max_tokens: null, stop: null, n: 1, logprobs: false, user: "someone", store: false}));
        expect(res.status).toBe(200);
        expect(res.body.choices[0].message.content).toBe("Hello there!");
    });

    it("reads JSON sent with curl's default Content-Type or as text/plain", async () => {
        const {app} = createTestApp();
        for (const type of ["application/x-www-form-urlencoded", "text/plain"]) {
            const res = await request(app).post("/v1/chat/completions").set("Content-Type", type).send(JSON.stringify(chatRequest()));
            expect(res.status).toBe(200);
            expect(res.body.choices[0].message.content).toBe("Hello there!");
        }
    });
});
