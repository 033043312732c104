import type {LlamaModel, Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {ContextLengthExceededError} from "../../src/errors.js";
import {prepareTokenPrompt} from "../../src/engine/textPrompt.js";

/** Just what a token prompt reads of a model: its vocabulary and its detokenizer, which counts its calls. */
function modelDouble() {
    const spelled: Token[][] = [];
    const model = {
        fileInfo: {metadata: {tokenizer: {ggml: {tokens: ["a", "b", "c", "d"]}}}},
        detokenize: (tokens: readonly Token[]) => {
            spelled.push([...tokens]);
            return tokens.map((token) => "abcd"[token]).join("");
        }
    } as unknown as LlamaModel;
    return {model, spelled};
}

describe("prepareTokenPrompt", () => {
    it("takes the ids as they came and spells them for echo", () => {
        const {model} = modelDouble();
        expect(prepareTokenPrompt(model, [0, 1, 3], 8, "prompt")).toMatchObject({tokens: [0, 1, 3], exactTokens: true, text: "abd"});
    });

    it("refuses a prompt that leaves no room in the context before spelling it (a million ids fit under the body limit)", () => {
        const {model, spelled} = modelDouble();
        const refusal = (() => {
            try {
                prepareTokenPrompt(model, new Array(1_000_000).fill(1), 4096, "prompt[2]");
            } catch (error) {
                return error;
            }
        })();
        expect(refusal).toBeInstanceOf(ContextLengthExceededError);
        expect(refusal).toMatchObject({status: 400, code: "context_length_exceeded", param: "prompt[2]"});
        expect((refusal as Error).message).toContain("your prompt[2] resulted in 1000000 tokens");
        expect(spelled).toEqual([]);
        expect(() => prepareTokenPrompt(model, [0, 1, 2, 3], 4, "prompt")).toThrow(ContextLengthExceededError);
    });

    it("refuses ids outside the vocabulary", () => {
        const {model} = modelDouble();
        expect(() => prepareTokenPrompt(model, [0, 4], 8, "prompt")).toThrow(/token id 4 is not in this model's vocabulary/);
    });
});
