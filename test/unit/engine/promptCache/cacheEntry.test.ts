import {describe, expect, it} from "vitest";
import {blockTokens, chainedBlockHashes} from "../../../../src/engine/promptCache/blockHashes.js";
import {CorruptEntryError, decodeEntry, decodeHeader, encodeEntry, makeEntry, seedOf} from "../../../../src/engine/promptCache/cacheEntry.js";

const tokens = (length: number, from = 1) => Int32Array.from({length}, (_, index) => from + index);

describe("chained block hashes", () => {
    it("hash whole blocks only, each covering every token before it", () => {
        const a = chainedBlockHashes("seed", tokens(blockTokens * 3 + 5));
        expect(a).toHaveLength(3);
        const changedLast = tokens(blockTokens * 3 + 5);
        changedLast[blockTokens * 2 + 1] = -7;
        const b = chainedBlockHashes("seed", changedLast);
        expect(b.slice(0, 2)).toEqual(a.slice(0, 2));
        expect(b[2]).not.toBe(a[2]);
    });

    it("differ for another seed (another model layout, another cache partition)", () => {
        expect(chainedBlockHashes("layout\u0000key-a", tokens(blockTokens))).not.toEqual(chainedBlockHashes("layout\u0000key-b", tokens(blockTokens)));
    });
});

describe("a cache entry's bytes", () => {
    const entry = makeEntry("layout-1", "", Int32Array.from([...tokens(300), -42, -42, 7]), Buffer.from("llama state bytes"));

    it("come back as they went, an image's negative placeholders included", () => {
        const decoded = decodeEntry(encodeEntry(entry), "layout-1");
        expect(Array.from(decoded.tokens)).toEqual(Array.from(entry.tokens));
        expect(decoded.state.toString()).toBe("llama state bytes");
        expect(decoded.blockHashes).toEqual(chainedBlockHashes(seedOf("layout-1", ""), entry.tokens));
        expect(decodeHeader(encodeEntry(entry)).tokenCount).toBe(303);
    });

    it("are refused when truncated, flipped, padded or another layout's", () => {
        const bytes = encodeEntry(entry);
        expect(() => decodeEntry(bytes.subarray(0, bytes.length - 3), "layout-1")).toThrow(/truncated/);
        expect(() => decodeEntry(bytes.subarray(0, 40), "layout-1")).toThrow(CorruptEntryError);
        const flipped = Buffer.from(bytes);
        flipped[flipped.length - 2]! ^= 1;
        expect(() => decodeEntry(flipped, "layout-1")).toThrow(/checksum/);
        expect(() => decodeEntry(Buffer.concat([bytes, Buffer.from([0])]), "layout-1")).toThrow(/trailing/);
        expect(() => decodeEntry(bytes, "layout-2")).toThrow(/another model/);
        expect(() => decodeEntry(Buffer.from("GGUF and then some bytes that are not ours at all"), "layout-1")).toThrow(/not a chatserve/);
    });
});
