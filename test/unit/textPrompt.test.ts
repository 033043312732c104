import type {LlamaModel, Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {ContextLengthExceededError} from "../../src/errors.js";
import {prepareInfillPrompt, prepareTokenPrompt, shareInfillRoom} from "../../src/engine/textPrompt.js";

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

describe("prepareInfillPrompt", () => {
    /** A character a token; FIM tokens 1000–1002, BOS 1. Records how much text it was asked to tokenize. */
    const tokenized: string[] = [];
    const model = {
        tokens: {infill: {prefix: 1000, suffix: 1001, middle: 1002}, shouldPrependBosToken: true, bos: 1},
        tokenize: (text: string) => {
            tokenized.push(text);
            return [...text].map((char) => char.charCodeAt(0));
        }
    } as unknown as LlamaModel;
    const spell = (tokens: readonly number[]) => tokens.map((token) => token >= 1000 ? `<${token % 1000}>` : token === 1 ? "<s>" : String.fromCharCode(token)).join("");

    it("frames prefix and suffix with the model's FIM tokens when they fit", () => {
        expect(spell(prepareInfillPrompt(model, "abc", "xyz", 100)!.tokens)).toBe("<s><0>abc<1>xyz<2>");
    });

    it("keeps the text nearest the cursor where they do not fit: the prefix's end, the suffix's start", () => {
        // 14 of room: 4 for the framing, 10 for the texts; the suffix keeps a quarter (2), the prefix the rest.
        expect(spell(prepareInfillPrompt(model, "0123456789abcdef", "ABCDEFGHIJ", 14)!.tokens)).toBe("<s><0>89abcdef<1>AB<2>");
        // A short prefix leaves the suffix the rest of the room.
        expect(spell(prepareInfillPrompt(model, "ab", "ABCDEFGHIJ", 14)!.tokens)).toBe("<s><0>ab<1>ABCDEFGH<2>");
    });

    it("tokenizes only as much text as the room could hold, and never half a surrogate pair", () => {
        tokenized.length = 0;
        prepareInfillPrompt(model, "x".repeat(1_000_000) + "😀", "😀" + "y".repeat(1_000_000), 14);
        expect(tokenized.map((text) => text.length)).toEqual([160, 160]);
        // Room 15: 11 tokens, 176 characters at most; both cuts would fall between the halves of an emoji.
        tokenized.length = 0;
        prepareInfillPrompt(model, "x".repeat(100) + "😀".repeat(100) + "z", "z" + "😀".repeat(100), 15);
        expect(tokenized.map((text) => text.length)).toEqual([175, 175]);
        const halfPair = /^[\udc00-\udfff]|[\ud800-\udbff]$/;
        expect(tokenized.filter((text) => halfPair.test(text))).toEqual([]);
    });

    it("is null for a model without FIM tokens", () => {
        expect(prepareInfillPrompt({...model, tokens: {infill: {}}} as unknown as LlamaModel, "a", "b", 100)).toBeNull();
    });
});

describe("shareInfillRoom", () => {
    it("takes both whole when they fit, else up to a quarter of the room for the suffix and the rest for the prefix", () => {
        expect(shareInfillRoom(10, 5, 20)).toEqual({prefix: 10, suffix: 5});
        expect(shareInfillRoom(100, 100, 20)).toEqual({prefix: 15, suffix: 5});
        expect(shareInfillRoom(100, 2, 20)).toEqual({prefix: 18, suffix: 2});
        expect(shareInfillRoom(3, 100, 20)).toEqual({prefix: 3, suffix: 17});
        expect(shareInfillRoom(100, 100, 0)).toEqual({prefix: 0, suffix: 0});
    });
});
