import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {LookupDrafts} from "../../../../src/engine/speculation/draftSources.js";
import {NgramIndex} from "../../../../src/engine/speculation/ngramIndex.js";

const tokens = (...ids: number[]) => ids as Token[];

describe("NgramIndex", () => {
    it("finds where a run of tokens occurred before, latest first, leaving out the list's own end", () => {
        const index = new NgramIndex(2, tokens(1, 2, 3, 1, 2, 4, 1, 2));
        expect(index.occurrences(tokens(9, 1, 2))).toEqual([5, 2]);
        expect(index.occurrences(tokens(2, 9))).toEqual([]);
        expect(index.occurrences(tokens(2))).toEqual([]);
        expect(index.from(5, 2)).toEqual([4, 1]);
        expect(index.occurrences(tokens(9, 1, 2), 1)).toEqual([5]);
    });

    it("indexes a prompt given at once as it indexes the same tokens appended piece by piece", () => {
        const ids = Array.from({length: 3_000}, (_, index) => (index * 7919) % 23) as Token[];
        const whole = new NgramIndex(3, ids);
        const pieces = new NgramIndex(3, ids.slice(0, 1_000));
        for (let start = 1_000; start < ids.length; start += 7)
            pieces.append(ids.slice(start, start + 7));
        for (const end of [3, 50, 1_001, 2_999, 3_000])
            expect(pieces.occurrences(ids.slice(0, end))).toEqual(whole.occurrences(ids.slice(0, end)));
        expect(whole.occurrences(ids).length).toBeGreaterThan(100);
    });
});

describe("LookupDrafts", () => {
    it("proposes what followed the reply's last three tokens where they last occurred, in the prompt or the reply", () => {
        const lookup = new LookupDrafts(tokens(1, 2, 3, 4, 5, 6, 7));
        expect(lookup.propose(3)).toEqual([]);
        lookup.observe(tokens(9, 3, 4));
        expect(lookup.propose(3)).toEqual([]);
        lookup.observe(tokens(5));
        expect(lookup.propose(3)).toEqual([6, 7, 9]);
        lookup.observe(tokens(8, 8, 3, 4, 5));
        // 3 4 5 last occurred in the reply itself, followed by 8 8.
        expect(lookup.propose(2)).toEqual([8, 8]);
    });
});
