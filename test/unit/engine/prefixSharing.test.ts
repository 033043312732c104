import type {LlamaContextSequence, Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {minimumSharedGain, takeLongerPrefix} from "../../../src/engine/prefixSharing.js";
import {claimCache} from "../../../src/engine/cachePartitions.js";

/** A sequence double: its cached tokens, and node-llama-cpp's copy as its decision context calls it. */
class FakeSequence {
    public copies: Array<{from: FakeSequence, length: number}> = [];
    public cleared = 0;
    public constructor(public contextTokens: Token[], public needsCheckpoints = false, private readonly copyWorks = true) {}

    public async _copyStateFromOtherSequence(other: FakeSequence, length: number): Promise<boolean> {
        this.copies.push({from: other, length});
        this.contextTokens = other.contextTokens.slice(0, length);
        return this.copyWorks;
    }

    public async clearHistory(): Promise<void> {
        this.cleared++;
        this.contextTokens = [];
    }
}

const tokens = (count: number, from = 1) => Array.from({length: count}, (_, index) => (from + index) as Token);
const take = (target: FakeSequence, all: FakeSequence[], prompt: Token[]) =>
    takeLongerPrefix(target as unknown as LlamaContextSequence, all as unknown as LlamaContextSequence[], prompt);

describe("takeLongerPrefix", () => {
    const prompt = tokens(300);

    it("copies the longest prefix another sequence holds, when it is at least the minimum gain longer", async () => {
        const target = new FakeSequence(tokens(10));
        const short = new FakeSequence(tokens(120));
        const long = new FakeSequence([...tokens(250), 9999 as Token]);
        expect(await take(target, [target, short, long], prompt)).toBe(250);
        expect(target.copies).toEqual([{from: long, length: 250}]);
        expect(target.contextTokens).toEqual(tokens(250));
    });

    it("leaves the sequence as it is when no other holds enough more of the prompt", async () => {
        const target = new FakeSequence(tokens(100));
        const close = new FakeSequence(tokens(100 + minimumSharedGain - 1));
        expect(await take(target, [target, close], prompt)).toBe(0);
        expect(target.copies).toEqual([]);
        // Exactly the minimum gain is worth a copy.
        const enough = new FakeSequence(tokens(100 + minimumSharedGain));
        expect(await take(target, [target, close, enough], prompt)).toBe(100 + minimumSharedGain);
    });

    it("never copies into a model that keeps state snapshots", async () => {
        const target = new FakeSequence([], true);
        expect(await take(target, [target, new FakeSequence(tokens(300))], prompt)).toBe(0);
        expect(target.copies).toEqual([]);
    });

    it("empties the sequence when the copy did not come out whole", async () => {
        const target = new FakeSequence([], false, false);
        expect(await take(target, [target, new FakeSequence(tokens(300))], prompt)).toBe(0);
        expect(target.cleared).toBe(1);
        expect(target.contextTokens).toEqual([]);
    });
});

describe("takeLongerPrefix with cache partitions", () => {
    const prompt = tokens(300);
    /** A sequence `partition`'s request filled with `cached` (claimed as llamaLoadedModel.ts claims a leased one). */
    const filledBy = async (cached: Token[], partition: string | undefined) => {
        const sequence = new FakeSequence([]);
        await claimCache(sequence as unknown as LlamaContextSequence, partition);
        sequence.contextTokens = cached;
        return sequence;
    };

    it("never copies another partition's prefix, however long: the request evaluates its prompt itself", async () => {
        const target = await filledBy([], "key-b");
        const others = [target, await filledBy(tokens(290), "key-a")];
        expect(await takeLongerPrefix(target as unknown as LlamaContextSequence, others as unknown as LlamaContextSequence[], prompt, "key-b")).toBe(0);
        expect(target.copies).toEqual([]);
    });

    it("copies from its own partition's sequence, passing over a longer one of another", async () => {
        const target = await filledBy([], "key-b");
        const own = await filledBy(tokens(200), "key-b");
        const others = [target, await filledBy(tokens(290), "key-a"), own];
        expect(await takeLongerPrefix(target as unknown as LlamaContextSequence, others as unknown as LlamaContextSequence[], prompt, "key-b")).toBe(200);
        expect(target.copies).toEqual([{from: own, length: 200}]);
    });
});
