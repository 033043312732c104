import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {alignPromptWithCache} from "../../../src/engine/cacheAlignment.js";

// A fake vocabulary: special tokens decode to nothing (as model.detokenize(tokens, false) does), "<0xHH>"
// is a single byte, anything else its UTF-8 text. Bytes are joined and decoded, so a split character
// decodes to U+FFFD as it does in llama.cpp.
const specials = ["<s>", "<|im_start|>", "<|im_end|>"];
const vocabulary = [
    ...specials, "\n", "user", "assistant", "Hello", " world", "Hel", "lo", " wor", "ld", "!", " world!", "Hi",
    " there", " again", "x", "y", "z", " Hello", "é", "!?", "<0xC3>", "<0xA9>", "<0xE2>"
];
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", {fatal: false});

function bytesOf(piece: string): number[] {
    if (specials.includes(piece))
        return [];
    const byte = /^<0x([0-9A-F]{2})>$/.exec(piece);
    return byte != null ? [parseInt(byte[1]!, 16)] : [...encoder.encode(piece)];
}

const detokenize = (tokens: readonly Token[]): string =>
    decoder.decode(Uint8Array.from(tokens.flatMap((token) => bytesOf(vocabulary[token]!))));
/** With special tokens visible, to check that none was added, dropped or moved. */
function withSpecials(tokens: readonly Token[]): string {
    let text = "";
    let run: Token[] = [];
    for (const token of tokens) {
        if (!specials.includes(vocabulary[token]!)) {
            run.push(token);
            continue;
        }
        text += detokenize(run) + vocabulary[token];
        run = [];
    }
    return text + detokenize(run);
}

function tokens(...pieces: string[]): Token[] {
    return pieces.map((piece) => {
        const id = vocabulary.indexOf(piece);
        if (id < 0)
            throw new Error(`not in the fake vocabulary: ${piece}`);
        return id as Token;
    });
}

const head = tokens("<s>", "<|im_start|>", "user", "\n", "x", "<|im_end|>", "\n", "<|im_start|>", "assistant", "\n");
const nextTurn = tokens("<|im_end|>", "\n", "<|im_start|>", "user", "\n", "y", "<|im_end|>", "\n", "<|im_start|>", "assistant", "\n");

function expectSameText(aligned: readonly Token[], prompt: readonly Token[]): void {
    expect(withSpecials(aligned)).toBe(withSpecials(prompt));
}

describe("alignPromptWithCache", () => {
    it("leaves a prompt that extends the cache as it is", () => {
        const cached = [...head, ...tokens("Hello", " world")];
        const prompt = [...cached, ...nextTurn];
        expect(alignPromptWithCache(cached, prompt, detokenize)).toBe(prompt);
    });

    it("keeps the sampled tokens of a reply whose text was tokenized differently", () => {
        const cached = [...head, ...tokens("Hel", "lo", " wor", "ld", "!")];
        const prompt = [...head, ...tokens("Hello", " world", "!"), ...nextTurn];
        const aligned = alignPromptWithCache(cached, prompt, detokenize);
        expect(aligned).toEqual([...cached, ...nextTurn]);
        expectSameText(aligned, prompt);
    });

    it("leaves the prompt as it is when no text matches", () => {
        const cached = [...head, ...tokens("Hi", " there")];
        const prompt = [...head, ...tokens("Hello", " world"), ...nextTurn];
        expect(alignPromptWithCache(cached, prompt, detokenize)).toBe(prompt);
    });

    it("leaves the prompt as it is when the cache holds all of it and more", () => {
        const prompt = [...head, ...tokens("Hello")];
        expect(alignPromptWithCache([...prompt, ...tokens(" world", "!")], prompt, detokenize)).toBe(prompt);
    });

    it("leaves the prompt as it is with an empty cache or an empty prompt", () => {
        const prompt = [...head, ...tokens("Hello")];
        expect(alignPromptWithCache([], prompt, detokenize)).toBe(prompt);
        expect(alignPromptWithCache(prompt, [], detokenize)).toEqual([]);
    });

    it("reuses the part of a cached reply whose text matches (a reply cut short by a stop sequence)", () => {
        const cached = [...head, ...tokens("Hel", "lo", " wor", "ld", " again")];
        const prompt = [...head, ...tokens("Hello", " world", "!"), ...nextTurn];
        const aligned = alignPromptWithCache(cached, prompt, detokenize);
        expect(aligned).toEqual([...head, ...tokens("Hel", "lo", " wor", "ld", "!"), ...nextTurn]);
        expectSameText(aligned, prompt);
    });

    it("drops cached tokens until a boundary both sides share", () => {
        // Shared text "Hello world!": the cache has a boundary after "Hello world", the prompt does not.
        const cached = [...head, ...tokens("Hel", "lo", " wor", "ld", "!?")];
        const prompt = [...head, ...tokens("Hello", " world!", "z"), ...nextTurn];
        const aligned = alignPromptWithCache(cached, prompt, detokenize);
        expect(aligned).toEqual([...head, ...tokens("Hel", "lo", " world!", "z"), ...nextTurn]);
        expectSameText(aligned, prompt);
    });

    it("never puts plain text in place of a special token", () => {
        // Without its special token the prompt decodes to the same text as the cache.
        const cached = [...head, ...tokens("Hel", "lo", " world")];
        const prompt = [...head, ...tokens("Hello", "<|im_end|>", " world")];
        const aligned = alignPromptWithCache(cached, prompt, detokenize);
        expect(aligned).toEqual([...head, ...tokens("Hel", "lo", "<|im_end|>", " world")]);
        expectSameText(aligned, prompt);
    });

    it("splices over every earlier reply of a long chat", () => {
        const turn2 = tokens("<|im_end|>", "\n", "<|im_start|>", "user", "\n", "y", "<|im_end|>", "\n", "<|im_start|>", "assistant", "\n");
        const cached = [...head, ...tokens("Hel", "lo", " wor", "ld"), ...turn2, ...tokens("Hi", " there", "!")];
        const prompt = [...head, ...tokens("Hello", " world"), ...turn2, ...tokens("Hi", " there", "!"), ...nextTurn];
        const aligned = alignPromptWithCache(cached, prompt, detokenize);
        expect(aligned).toEqual([...cached, ...nextTurn]);
        expectSameText(aligned, prompt);
    });

    it("matches a character split over byte tokens", () => {
        const cached = [...head, ...tokens("<0xC3>", "<0xA9>", "!")];
        const prompt = [...head, ...tokens("é", "!"), ...nextTurn];
        const aligned = alignPromptWithCache(cached, prompt, detokenize);
        expect(aligned).toEqual([...cached, ...nextTurn]);
        expectSameText(aligned, prompt);
    });

    it("never matches bytes that do not decode, though both sides read U+FFFD", () => {
        const cached = [...head, ...tokens("<0xC3>", "z")];
        const prompt = [...head, ...tokens("<0xE2>", "z"), ...nextTurn];
        expect(detokenize(cached.slice(head.length))).toBe(detokenize(prompt.slice(head.length, head.length + 2)));
        expect(alignPromptWithCache(cached, prompt, detokenize)).toBe(prompt);
    });

    it("decodes spans after shared tokens, for vocabularies that drop a leading space at the start", () => {
        const dropsLeadingSpace = (tokens: readonly Token[]): string => detokenize(tokens).replace(/^ /, "");
        const cached = [...head, ...tokens(" Hello")];
        const prompt = [...head, ...tokens("Hello"), ...nextTurn];
        expect(dropsLeadingSpace(tokens(" Hello"))).toBe(dropsLeadingSpace(tokens("Hello")));
        expect(alignPromptWithCache(cached, prompt, dropsLeadingSpace)).toBe(prompt);
    });

    it("looks no further into a long prompt than the cached text could reach", () => {
        const calls: number[] = [];
        const counting = (tokens: readonly Token[]): string => {
            calls.push(tokens.length);
            return detokenize(tokens);
        };
        const cached = [...head, ...tokens("Hi")];
        const prompt = [...head, ...tokens("Hello"), ...Array.from({length: 10_000}, () => tokens("x")[0]!)];
        expect(alignPromptWithCache(cached, prompt, counting)).toBe(prompt);
        expect(Math.max(...calls)).toBeLessThan(20);
    });
});
