import {describe, expect, it} from "vitest";
import {blockTokens, chainedBlockHashes} from "../../../../src/engine/promptCache/blockHashes.js";
import {entryBytes, makeEntry, seedOf} from "../../../../src/engine/promptCache/cacheEntry.js";
import {RamTier} from "../../../../src/engine/promptCache/ramTier.js";

const conversation = (id: number, length: number) => Int32Array.from({length}, (_, index) => index < blockTokens ? index : id * 100_000 + index);
const entryOf = (tokens: Int32Array, partition = "", stateBytes = 1000) => makeEntry("layout", partition, tokens, Buffer.alloc(stateBytes));
const find = (tier: RamTier, prompt: Int32Array, partition = "") => tier.find(chainedBlockHashes(seedOf("layout", partition), prompt), prompt);

describe("the RAM tier", () => {
    it("finds the entry sharing the longest exact prefix, also one that shares only its first blocks", () => {
        const tier = new RamTier(1e6);
        tier.add(entryOf(conversation(1, 600)));
        tier.add(entryOf(conversation(2, 600)));
        const prompt = Int32Array.from([...conversation(2, 450), 9, 9, 9]);
        expect(find(tier, prompt)?.length).toBe(450);
        // Only the first block is common to both: either one serves it.
        expect(find(tier, Int32Array.from([...conversation(3, 200)]))?.length).toBe(blockTokens);
        expect(find(tier, Int32Array.from({length: 300}, () => 5))).toBeUndefined();
    });

    it("never finds another partition's entry", () => {
        const tier = new RamTier(1e6);
        tier.add(entryOf(conversation(1, 600), "key-a"));
        expect(find(tier, conversation(1, 600), "key-b")).toBeUndefined();
        expect(find(tier, conversation(1, 600), "key-a")?.length).toBe(600);
    });

    it("drops the least recently used to stay in budget", () => {
        const one = entryOf(conversation(1, 300));
        const tier = new RamTier(entryBytes(one) * 2);
        tier.add(one);
        tier.add(entryOf(conversation(2, 300)));
        find(tier, conversation(1, 300));
        tier.add(entryOf(conversation(3, 300)));
        expect(find(tier, conversation(2, 300))?.length ?? 0).toBeLessThan(300);
        expect(find(tier, conversation(1, 300))?.length).toBe(300);
        expect(tier.bytes).toBeLessThanOrEqual(tier.budgetBytes);
    });

    it("drops an entry that a later one holds whole (the same conversation a turn later)", () => {
        const tier = new RamTier(1e6);
        tier.add(entryOf(conversation(1, 300)));
        tier.add(entryOf(conversation(2, 300)));
        tier.add(entryOf(conversation(1, 400)));
        expect(tier.count).toBe(2);
        expect(find(tier, conversation(1, 400))?.entry.tokens.length).toBe(400);
    });

    it("refuses an entry larger than its whole budget", () => {
        expect(new RamTier(10).add(entryOf(conversation(1, 300))).added).toBe(false);
    });
});
