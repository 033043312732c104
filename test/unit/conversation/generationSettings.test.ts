import {describe, expect, it} from "vitest";
import {toGenerationOptions} from "../../../src/conversation/generationSettings.js";
import {BadRequestError, ContextLengthExceededError} from "../../../src/errors.js";
import {chatCompletionRequestSchema} from "../../../src/api/openai-chat/chatCompletionRequest.js";
import {toConversation} from "../../../src/api/openai-chat/toConversation.js";
import {thrownError} from "../support/thrownError.js";

const request = (extra: Record<string, unknown> = {}) =>
    toConversation(chatCompletionRequestSchema.parse({model: "m", messages: [{role: "user", content: "hi"}], ...extra}));

const overflow = (extra: Record<string, unknown>, promptTokens: number, contextLength: number) =>
    thrownError(ContextLengthExceededError, () => toGenerationOptions(request(extra), promptTokens, contextLength));

describe("toGenerationOptions", () => {
    it("fills in OpenAI's defaults: temperature 1, top_p 1, no penalties, no stops, all the room left", () => {
        expect(toGenerationOptions(request(), 10, 100)).toEqual({
            maxTokens: 90,
            stop: [],
            sampling: {temperature: 1, topP: 1, seed: expect.any(Number), presencePenalty: 0, frequencyPenalty: 0},
            format: {type: "text"}
        });
    });

    it("top_k, min_p and repeat_penalty (Ollama's options) override the model's defaults; unset, the model's apply", () => {
        const conversation = {...request(), sampling: {topK: 5, minP: 0.1, repeatPenalty: 1.2}};
        const modelDefaults = {topK: 40, minP: 0.05, repeatPenalty: 1.1};
        expect(toGenerationOptions(conversation, 10, 100, {modelDefaults}).sampling).toMatchObject({topK: 5, minP: 0.1, repeatPenalty: 1.2});
        expect(toGenerationOptions(request(), 10, 100, {modelDefaults}).sampling).toMatchObject(modelDefaults);
        expect(toGenerationOptions(request(), 10, 100).sampling).not.toHaveProperty("topK");
    });

    it("treats nulls as not set", () => {
        const options = toGenerationOptions(request({temperature: null, top_p: null, max_tokens: null, stop: null, seed: null}), 10, 100);
        expect(options).toMatchObject({maxTokens: 90, stop: [], sampling: {temperature: 1, topP: 1}});
    });

    it("folds any seed into llama.cpp's [0, 2^32 - 2]: 2^32 - 1 means 'random' there", () => {
        const seedOf = (seed: number) => toGenerationOptions(request({seed}), 10, 100).sampling.seed;
        expect([0, 42, 2 ** 32 - 2].map(seedOf)).toEqual([0, 42, 2 ** 32 - 2]);
        expect([2 ** 32 - 1, 2 ** 32, -1, -2, Number.MAX_SAFE_INTEGER].map(seedOf)).toEqual([0, 1, 2 ** 32 - 2, 2 ** 32 - 3, 2 ** 21 - 1]);
        // 2^63 (what 2**63 - 1 parses to) is 2^31 modulo 2^32 - 1, exactly: a double's remainder is exact.
        expect(seedOf(2 ** 63)).toBe(2 ** 31);
    });

    it("gives each request without a seed a random one of its own", () => {
        const seeds = new Set(Array.from({length: 20}, () => toGenerationOptions(request({seed: null}), 10, 100).sampling.seed));
        expect(seeds.size).toBeGreaterThan(15);
        for (const seed of seeds)
            expect(Number.isInteger(seed) && seed! >= 0 && seed! < 2 ** 32 - 1).toBe(true);
    });

    it("passes the client's sampling settings through, temperature 0 included", () => {
        const options = toGenerationOptions(request({temperature: 0, top_p: 0.9, seed: 42, presence_penalty: 0.5, frequency_penalty: -1}), 10, 100);
        expect(options.sampling).toEqual({temperature: 0, topP: 0.9, seed: 42, presencePenalty: 0.5, frequencyPenalty: -1});
    });

    it("turns a single stop string into a list", () => {
        expect(toGenerationOptions(request({stop: "END"}), 1, 100).stop).toEqual(["END"]);
        expect(toGenerationOptions(request({stop: ["a", "b"]}), 1, 100).stop).toEqual(["a", "b"]);
    });

    it("prefers max_completion_tokens over max_tokens", () => {
        expect(toGenerationOptions(request({max_tokens: 5}), 10, 100).maxTokens).toBe(5);
        expect(toGenerationOptions(request({max_completion_tokens: 7, max_tokens: 5}), 10, 100).maxTokens).toBe(7);
    });

    it("accepts a completion that exactly fills the context", () => {
        expect(toGenerationOptions(request({max_tokens: 90}), 10, 100).maxTokens).toBe(90);
    });

    it("gives a max_tokens larger than the room left only that room (the reply then ends with length)", () => {
        expect(toGenerationOptions(request({max_tokens: 91}), 10, 100).maxTokens).toBe(90);
        expect(toGenerationOptions(request({max_tokens: 32_000}), 10, 100).maxTokens).toBe(90);
    });

    it("cuts max_completion_tokens, not a smaller max_tokens, to the room", () => {
        expect(toGenerationOptions(request({max_completion_tokens: 95, max_tokens: 5}), 10, 100).maxTokens).toBe(90);
    });

    it("refuses an empty prompt (a model without a beginning-of-text token turns \"\" into no tokens)", () => {
        const error = thrownError(BadRequestError, () => toGenerationOptions({...request(), promptPath: "prompt"}, 0, 100));
        expect(error.status).toBe(400);
        expect(error.param).toBe("prompt");
        expect(error.message).toContain("empty");
    });

    it("refuses a prompt that alone fills the context", () => {
        expect(overflow({}, 100, 100).message).toContain("100 tokens");
        overflow({}, 150, 100);
    });
});
