import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {IncrementalDetokenizer} from "../../../src/engine/incrementalDetokenizer.js";

// Byte-level fake vocabulary: token n is byte n. Decoding an incomplete UTF-8 sequence yields U+FFFD,
// as llama.cpp's detokenizer does for a partial character.
const decoder = new TextDecoder("utf-8", {fatal: false});
const detokenize = (tokens: readonly Token[]) => decoder.decode(Uint8Array.from(tokens));
const bytes = (text: string) => [...new TextEncoder().encode(text)] as Token[];

function pushAll(detokenizer: IncrementalDetokenizer, tokens: readonly Token[]): string[] {
    return tokens.map((token) => detokenizer.push(token));
}

describe("IncrementalDetokenizer", () => {
    it("emits complete characters at once", () => {
        const detokenizer = new IncrementalDetokenizer(detokenize);
        expect(pushAll(detokenizer, bytes("Hi!"))).toEqual(["H", "i", "!"]);
        expect(detokenizer.flush()).toBe("");
    });

    it("reads a shown token (a control token that decodes to nothing) as its text, letting go of what it held", () => {
        const marker = 1000 as Token;
        const detokenizer = new IncrementalDetokenizer((tokens) => detokenize(tokens.filter((token) => token !== marker)), [], new Map([[marker, "[TOOL_CALLS]"]]));
        const [firstByte] = bytes("é");
        expect(detokenizer.push(firstByte!)).toBe("");
        expect(detokenizer.push(marker)).toBe("\uFFFD[TOOL_CALLS]");
        expect(pushAll(detokenizer, bytes("ok"))).toEqual(["o", "k"]);
    });

    it("holds the bytes of a split character until it is complete", () => {
        const detokenizer = new IncrementalDetokenizer(detokenize);
        expect(pushAll(detokenizer, bytes("é"))).toEqual(["", "é"]);
        expect(pushAll(detokenizer, bytes("😀"))).toEqual(["", "", "", "😀"]);
        expect(detokenizer.push(bytes("a")[0]!)).toBe("a");
    });

    it("never emits U+FFFD for text whose full decode has none", () => {
        const text = "naïve café — 日本語 🎉!";
        const detokenizer = new IncrementalDetokenizer(detokenize);
        const out = pushAll(detokenizer, bytes(text)).join("") + detokenizer.flush();
        expect(out).toBe(text);
        expect(out).not.toContain("\uFFFD");
    });

    it("releases a held piece at flush", () => {
        const detokenizer = new IncrementalDetokenizer(detokenize);
        expect(detokenizer.push(0xC3 as Token)).toBe("");
        expect(detokenizer.flush()).toBe("\uFFFD");
        expect(detokenizer.flush()).toBe("");
    });

    it("gives up holding after 4 tokens", () => {
        const detokenizer = new IncrementalDetokenizer(detokenize);
        // Lone continuation bytes never complete a character.
        expect(pushAll(detokenizer, [0x80, 0x80, 0x80] as Token[])).toEqual(["", "", ""]);
        expect(detokenizer.push(0x80 as Token)).toBe("\uFFFD".repeat(4));
        // Holding starts afresh after a release.
        expect(detokenizer.push(0x80 as Token)).toBe("");
    });

    it("sends each character of a run of tokens that straddle characters as it completes, with no U+FFFD", () => {
        // Byte-level BPE merges across CJK characters: every token ends one character and starts the next.
        const pieces = [[0xE4, 0xB8], [0xAD, 0xE6], [0x96, 0x87, 0xE5], [0xAD, 0x97, 0xE7], [0xAC, 0xA6, 0xE4], [0xB8, 0xB2]];
        const pieceDecode = (tokens: readonly Token[]) => decoder.decode(Uint8Array.from(tokens.flatMap((token) => pieces[token]!)));
        const detokenizer = new IncrementalDetokenizer(pieceDecode);
        expect(pushAll(detokenizer, [0, 1, 2, 3, 4, 5] as Token[])).toEqual(["", "中", "文", "字", "符", "串"]);
        expect(detokenizer.flush()).toBe("");
    });

    it("passes the last released tokens (at most 4) as context, starting from the prompt's", () => {
        const calls: Array<{tokens: number[], context: number[]}> = [];
        const recording = (tokens: readonly Token[], context: readonly Token[]) => {
            calls.push({tokens: [...tokens], context: [...context]});
            return "x";
        };
        const detokenizer = new IncrementalDetokenizer(recording, [1, 2, 3, 4, 5, 6] as Token[]);
        detokenizer.push(10 as Token);
        detokenizer.push(11 as Token);
        expect(calls).toEqual([
            {tokens: [10], context: [3, 4, 5, 6]},
            {tokens: [11], context: [4, 5, 6, 10]}
        ]);
    });
});
