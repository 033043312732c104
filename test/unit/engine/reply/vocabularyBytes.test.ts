import type {LlamaModel, Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {VocabularyBytes} from "../../../../src/engine/reply/vocabularyBytes.js";

const modelWith = (model: string, tokens: string[]) => ({fileInfo: {metadata: {tokenizer: {ggml: {model, tokens}}}}}) as unknown as LlamaModel;

describe("VocabularyBytes", () => {
    it("SentencePiece byte fallback: finds the bytes UTF-8 never has, and what may not follow E0, ED, F0 and F4", () => {
        const tokens = ["<unk>", "<s>", ...Array.from({length: 256}, (_, byte) => `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`), "▁the"];
        const bytes = VocabularyBytes.of(modelWith("llama", tokens));
        const byte = (value: number) => (value + 2) as Token;
        expect(bytes.invalid).toEqual([0xC0, 0xC1, ...Array.from({length: 11}, (_, index) => 0xF5 + index)].map(byte));

        expect(bytes.narrowLeadAtEnd(byte(0xE0))).toBe(0xE0);
        expect(bytes.narrowLeadAtEnd(byte(0xE4))).toBeUndefined();
        expect(bytes.narrowLeadAtEnd(258 as Token)).toBeUndefined();
        // E0 takes A0–BF next: 80–9F are overlong. ED takes 80–9F (A0–BF would be surrogates).
        expect(bytes.barredAfterLead(0xE0)).toEqual(Array.from({length: 0x20}, (_, index) => byte(0x80 + index)));
        expect(bytes.barredAfterLead(0xED)).toEqual(Array.from({length: 0x20}, (_, index) => byte(0xA0 + index)));
        expect(bytes.barredAfterLead(0xF4)).toHaveLength(0x30);
    });

    it("GPT-2 byte-level BPE: reads each token's bytes from its printable characters", () => {
        // "à" is byte E0 written as itself; "Ģ" (U+0122) is byte 0x80, one of the bytes GPT-2 writes from U+0100 on.
        const bytes = VocabularyBytes.of(modelWith("gpt2", ["Ġthe", "à", "ĢĴ", "õ", "<|im_end|>"]));
        expect(bytes.invalid).toEqual([3]);
        expect(bytes.narrowLeadAtEnd(1 as Token)).toBe(0xE0);
        expect(bytes.barredAfterLead(0xE0)).toEqual([2]);
        expect(bytes.narrowLeadAtEnd(4 as Token)).toBeUndefined();
    });
});
