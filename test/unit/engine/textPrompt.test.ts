import type {LlamaModel, Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {ContextLengthExceededError} from "../../../src/errors.js";
import {prepareInfillPrompt, prepareTokenPrompt, shareInfillRoom} from "../../../src/engine/textPrompt.js";

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
    /** A character a token (or one per 8 characters, `coarse`); FIM tokens 1000–1002, BOS 1. Records the text it was asked to tokenize. */
    const tokenized: string[] = [];
    const modelWith = (charactersPerToken: number) => ({
        tokens: {infill: {prefix: 1000, suffix: 1001, middle: 1002}, shouldPrependBosToken: true, bos: 1},
        tokenize: (text: string) => {
            tokenized.push(text);
            return charactersPerToken === 1 ? [...text].map((char) => char.charCodeAt(0)) : new Array(Math.ceil(text.length / charactersPerToken)).fill(120);
        }
    }) as unknown as LlamaModel;
    const model = modelWith(1);
    const spell = (tokens: readonly number[]) => tokens.map((token) => token >= 1000 ? `<${token % 1000}>` : token === 1 ? "<s>" : String.fromCharCode(token)).join("");
    const infill = async (prefix: string, suffix: string, contextLength: number, completionTokens = 0, on = model) =>
        (await prepareInfillPrompt(on, prefix, suffix, {contextLength, completionTokens}))!;

    it("frames prefix and suffix with the model's FIM tokens when they fit", async () => {
        expect(spell((await infill("abc", "xyz", 100, 16)).tokens)).toBe("<s><0>abc<1>xyz<2>");
    });

    it("keeps the text nearest the cursor where they do not fit: the prefix's end, the suffix's start", async () => {
        // 16 of context, 2 for the completion, 4 for the framing: 10 for the texts; the suffix gets its quarter (2), the prefix the rest.
        expect(spell((await infill("0123456789abcdef", "ABCDEFGHIJ", 16, 2)).tokens)).toBe("<s><0>89abcdef<1>AB<2>");
        // A short prefix leaves the suffix the rest of the room.
        expect(spell((await infill("ab", "ABCDEFGHIJ", 16, 2)).tokens)).toBe("<s><0>ab<1>ABCDEFGH<2>");
    });

    it("tokenizes only the edge of a long text that the room needs, and never half a surrogate pair", async () => {
        tokenized.length = 0;
        await infill("x".repeat(1_000_000), "y".repeat(1_000_000), 14);
        expect(tokenized.map((text) => text.length)).toEqual([64, 64]);
        // 64 characters would cut an emoji in two on both sides.
        tokenized.length = 0;
        await infill("x".repeat(100) + "😀".repeat(100) + "z", "z" + "😀".repeat(100), 14);
        expect(tokenized.map((text) => text.length)).toEqual([63, 63]);
        const halfPair = /^[\udc00-\udfff]|[\ud800-\udbff]$/;
        expect(tokenized.filter((text) => halfPair.test(text))).toEqual([]);
        // Longer tokens: twice as much text, until the edge holds enough of them.
        tokenized.length = 0;
        await infill("x".repeat(1_000_000), "", 14, 0, modelWith(8));
        expect(tokenized.map((text) => text.length)).toEqual([64, 128, 0]);
    });

    it("refuses a completion that leaves the texts no room, rather than writing a middle with neither side", async () => {
        const refusal = await infill("a", "b", 10, 6).catch((error: unknown) => error);
        expect(refusal).toBeInstanceOf(ContextLengthExceededError);
        expect(refusal).toMatchObject({status: 400, param: "max_tokens", message: expect.stringContaining("you requested 6 tokens for the completion")});
        expect(spell((await infill("", "", 10, 6)).tokens)).toBe("<s><0><1><2>");
    });

    it("is null for a model without FIM tokens", async () => {
        expect(await prepareInfillPrompt({...model, tokens: {infill: {}}} as unknown as LlamaModel, "a", "b", {contextLength: 100, completionTokens: 0})).toBeNull();
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
