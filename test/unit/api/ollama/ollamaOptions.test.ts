// Ollama's options: num_ctx against the served context (honoured below, a 400 above, never a cut),
// num_predict's negative values, sampling names.
import {describe, expect, it} from "vitest";
import {checkNumCtx, maxTokensOf, toSampling} from "../../../../src/api/ollama/ollamaOptions.js";
import {ollamaName} from "../../../../src/api/ollama/modelNames.js";

describe("Ollama options", () => {
    it("num_ctx up to the served context passes; beyond it a 400 names the field and both sizes", () => {
        expect(() => checkNumCtx({num_ctx: 4096}, "m", 4096)).not.toThrow();
        expect(() => checkNumCtx({num_ctx: 2048}, "m", 4096)).not.toThrow();
        expect(() => checkNumCtx({}, "m", 4096)).not.toThrow();
        expect(() => checkNumCtx({num_ctx: 8192}, "m", null)).not.toThrow();
        expect(() => checkNumCtx({num_ctx: 8192}, "m", 4096)).toThrow(expect.objectContaining({
            status: 400, param: "options.num_ctx", message: expect.stringMatching(/8192 .* 4096 tokens/)
        }));
    });

    it("num_predict: a positive count limits the reply; -1 and -2 leave it the room the prompt leaves", () => {
        expect(maxTokensOf({num_predict: 12})).toEqual({maxTokens: 12});
        expect(maxTokensOf({num_predict: -1})).toEqual({});
        expect(maxTokensOf({num_predict: -2})).toEqual({});
        expect(maxTokensOf(undefined)).toEqual({});
    });

    it("sampling under chatserve's names; unset stays unset", () => {
        expect(toSampling({temperature: 0, top_p: 0.9, top_k: 0, min_p: 0.05, repeat_penalty: 1.1, presence_penalty: 0.5, frequency_penalty: -0.5, seed: -1}))
            .toEqual({temperature: 0, topP: 0.9, topK: 0, minP: 0.05, repeatPenalty: 1.1, presencePenalty: 0.5, frequencyPenalty: -0.5, seed: -1});
        expect(toSampling(null)).toEqual({});
    });
});

describe("Ollama model names", () => {
    it("listed as id:latest; a tagged alias as written", () => {
        expect(ollamaName("qwen")).toBe("qwen:latest");
        expect(ollamaName("coder:7b")).toBe("coder:7b");
    });
});
