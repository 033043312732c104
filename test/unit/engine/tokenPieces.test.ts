import type {LlamaModel, Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {pieceBytes, pieceOf, piecesText} from "../../../src/engine/tokenPieces.js";

type Kind = "normal" | "control" | "byte" | "userDefined";

/** Just what tokenPieces.ts reads of a model: its vocabulary's texts and kinds, its type, its pre-tokenizer. */
function vocabulary(type: "bpe" | "spm", entries: Array<[string, Kind]>, pre = "qwen2"): LlamaModel {
    return {
        vocabularyType: type,
        fileInfo: {metadata: {tokenizer: {ggml: {tokens: entries.map(([text]) => text), pre}}}},
        getTokenAttributes: (token: Token) => {
            const kind = entries[token]![1];
            return {normal: kind === "normal", control: kind === "control", byte: kind === "byte", userDefined: kind === "userDefined", unknown: false};
        }
    } as unknown as LlamaModel;
}

describe("token pieces, as llama.cpp's token_to_piece spells them", () => {
    it("reads GPT-2's byte-level text back to bytes: Ġ is a space, and an emoji's bytes may be split over tokens", () => {
        // "🦙" is F0 9F A6 99; byte-level text writes 0xF0 as "ð" and 0xA6 as "¦" (printable), 0x9F as "Ł" and 0x99 as "Ļ" (moved to U+0100 on).
        const model = vocabulary("bpe", [["Ġhello", "normal"], ["ðŁ", "normal"], ["¦Ļ", "normal"], ["<|im_start|>", "control"]]);
        expect(Buffer.from(pieceBytes(model, 0 as Token)).toString()).toBe(" hello");
        expect(pieceOf(model, 1 as Token)).toEqual([0xf0, 0x9f]);
        expect(pieceOf(model, 2 as Token)).toEqual([0xa6, 0x99]);
        expect(piecesText(model, [3, 0, 1, 2] as Token[])).toBe("<|im_start|> hello🦙");
    });

    it("reads SentencePiece's ▁ as a space and its <0xNN> tokens as that byte, keeping the leading space llama_detokenize drops", () => {
        const model = vocabulary("spm", [["▁the", "normal"], ["<0xF0>", "byte"], ["<s>", "control"], ["<tool_call>", "userDefined"]]);
        expect(pieceOf(model, 0 as Token)).toBe(" the");
        expect(pieceOf(model, 1 as Token)).toEqual([0xf0]);
        expect(piecesText(model, [2, 0, 3] as Token[])).toBe("<s> the<tool_call>");
    });

    it("reads ▁ as a space in a BPE vocabulary that escapes whitespace (Gemma 4's) rather than as byte-level text", () => {
        const model = vocabulary("bpe", [["▁word", "normal"]], "gemma4");
        expect(pieceOf(model, 0 as Token)).toBe(" word");
    });
});
