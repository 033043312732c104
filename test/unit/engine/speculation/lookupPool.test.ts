import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {PoolDrafts} from "../../../../src/engine/speculation/draftSources.js";
import {LookupPool, PoolWriter} from "../../../../src/engine/speculation/lookupPool.js";
import {lookupPoolFor} from "../../../../src/engine/speculation/lookupPools.js";

const tokens = (...ids: number[]) => ids as Token[];

describe("LookupPool", () => {
    it("proposes what followed the last four tokens, chaining its answers, and nothing for a run it has not seen", () => {
        const pool = new LookupPool();
        new PoolWriter(pool).append(tokens(1, 2, 3, 4, 5, 6, 7, 8));
        expect(pool.propose(tokens(9, 1, 2, 3, 4), 3)).toEqual([5, 6, 7]);
        expect(pool.propose(tokens(1, 2, 3, 4), 10)).toEqual([5, 6, 7, 8]);
        // Three matching tokens are not a run: the fourth differs.
        expect(pool.propose(tokens(0, 2, 3, 4), 3)).toEqual([]);
        expect(pool.propose(tokens(2, 3, 4), 3)).toEqual([]);
    });

    it("answers with the latest token that followed a run", () => {
        const pool = new LookupPool();
        const writer = new PoolWriter(pool);
        writer.append(tokens(1, 2, 3, 4, 5));
        writer.append(tokens(1, 2, 3, 4, 6));
        expect(pool.propose(tokens(1, 2, 3, 4), 1)).toEqual([6]);
    });

    it("never joins two streams' tokens into one run when their writers interleave", () => {
        const pool = new LookupPool();
        const first = new PoolWriter(pool);
        const second = new PoolWriter(pool);
        for (let index = 0; index < 4; index++) {
            first.append(tokens(10 + index));
            second.append(tokens(20 + index));
        }
        first.append(tokens(14));
        second.append(tokens(24));
        expect(pool.propose(tokens(10, 11, 12, 13), 1)).toEqual([14]);
        expect(pool.propose(tokens(20, 21, 22, 23), 1)).toEqual([24]);
        // Runs across the two streams were never added.
        expect(pool.propose(tokens(10, 20, 11, 21), 1)).toEqual([]);
        expect(first.tail).toEqual([11, 12, 13, 14]);
    });

    it("adds the same runs whether a stream comes whole, in a step's few tokens or one by one", () => {
        const text = tokens(...Array.from({length: 40}, (_, index) => (index * 7) % 13));
        const whole = new LookupPool();
        new PoolWriter(whole).append(text);
        const inSteps = new LookupPool();
        const writer = new PoolWriter(inSteps);
        // A prompt of 6, then steps of 1 to 4 kept tokens.
        writer.append(text.slice(0, 6));
        for (let at = 6, size = 1; at < text.length; at += size, size = size % 4 + 1)
            writer.append(text.slice(at, at + size));
        for (let end = 4; end < text.length; end++)
            expect(inSteps.propose(text.slice(0, end), 3)).toEqual(whole.propose(text.slice(0, end), 3));
        expect(writer.tail).toEqual(text.slice(-4));
    });

    it("holds a fixed 2 MiB however much it is given", () => {
        const pool = new LookupPool();
        const writer = new PoolWriter(pool);
        expect(pool.bytes).toBe(2 * 1024 * 1024);
        for (let index = 0; index < 20; index++)
            writer.append(Array.from({length: 50_000}, (_, position) => ((position * 7919 + index * 104_729) % 150_000) as Token));
        expect(pool.bytes).toBe(2 * 1024 * 1024);
        // The latest text is still there to draft from.
        const last = Array.from({length: 8}, (_, position) => (((49_990 + position) * 7919 + 19 * 104_729) % 150_000) as Token);
        expect(pool.propose(last.slice(0, 4), 4)).toEqual(last.slice(4));
    });
});

describe("lookupPoolFor", () => {
    it("gives one pool per model context and cache partition, keeping the 8 used last", () => {
        const context = {};
        const shared = lookupPoolFor(context, undefined);
        expect(lookupPoolFor(context, undefined)).toBe(shared);
        const keyA = lookupPoolFor(context, "key-a");
        expect(keyA).not.toBe(shared);
        expect(lookupPoolFor({}, undefined)).not.toBe(shared);

        // Eight partitions in all: the shared one, key-a's, and six more.
        const partitions = Array.from({length: 6}, (_, index) => `p${index}`);
        const pools = partitions.map((partition) => lookupPoolFor(context, partition));
        expect(lookupPoolFor(context, undefined)).toBe(shared);
        // A ninth drops the pool unused longest: key-a's, not the shared one used just now.
        lookupPoolFor(context, "p6");
        expect(lookupPoolFor(context, undefined)).toBe(shared);
        expect(partitions.map((partition) => lookupPoolFor(context, partition))).toEqual(pools);
        expect(lookupPoolFor(context, "key-a")).not.toBe(keyA);
    });
});

describe("PoolDrafts", () => {
    it("drafts a later request's reply from what an earlier one read and wrote", () => {
        const pool = new LookupPool();
        const prompt = tokens(1, 2, 3, 4);
        const first = new PoolDrafts(pool, prompt);
        expect(first.propose(4)).toEqual([]);
        first.observe(tokens(50, 51, 52, 53, 54, 55));
        // The same prompt again: the earlier reply is the draft.
        const second = new PoolDrafts(pool, prompt);
        expect(second.propose(4)).toEqual([50, 51, 52, 53]);
        second.observe(tokens(50, 51, 52, 53));
        expect(second.propose(4)).toEqual([54, 55]);
    });
});
