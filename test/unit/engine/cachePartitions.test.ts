import type {LlamaContextSequence} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {claimCache, holdsCacheOf, imageCacheId} from "../../../src/engine/cachePartitions.js";

/** A sequence double: what it holds, and how often it was emptied. */
class FakeSequence {
    public cleared = 0;
    public constructor(public nextTokenIndex = 0) {}
    public async clearHistory(): Promise<void> {
        this.cleared++;
        this.nextTokenIndex = 0;
    }
}
const claim = (sequence: FakeSequence, partition: string | undefined) => claimCache(sequence as unknown as LlamaContextSequence, partition);

describe("claimCache", () => {
    it("erases what another partition left in a sequence before the new partition's request uses it", async () => {
        const sequence = new FakeSequence();
        expect(await claim(sequence, "key-a")).toBe(false);
        sequence.nextTokenIndex = 120;
        // Key A's next request keeps its cache.
        expect(await claim(sequence, "key-a")).toBe(false);
        expect(sequence.cleared).toBe(0);
        // Key B's gets the sequence blank, and from then on it is B's.
        expect(await claim(sequence, "key-b")).toBe(true);
        expect(sequence.cleared).toBe(1);
        expect(sequence.nextTokenIndex).toBe(0);
        expect(holdsCacheOf(sequence, "key-b")).toBe(true);
        expect(holdsCacheOf(sequence, "key-a")).toBe(false);
    });

    it("keeps the cache between requests without a partition, and parts it from a partitioned one", async () => {
        const sequence = new FakeSequence(50);
        expect(holdsCacheOf(sequence, undefined)).toBe(true);
        expect(await claim(sequence, undefined)).toBe(false);
        expect(sequence.cleared).toBe(0);
        expect(await claim(sequence, "key-a")).toBe(true);
        sequence.nextTokenIndex = 10;
        expect(await claim(sequence, undefined)).toBe(true);
    });
});

describe("imageCacheId", () => {
    it("keys a decoded image by its bytes' hash and the partition, so another partition decodes it afresh", () => {
        expect(imageCacheId("abc", undefined)).toBe("abc");
        expect(imageCacheId("abc", "key-a")).not.toBe(imageCacheId("abc", "key-b"));
        expect(imageCacheId("abc", "key-a")).toBe(imageCacheId("abc", "key-a"));
    });
});
