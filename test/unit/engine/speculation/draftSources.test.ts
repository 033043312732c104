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
