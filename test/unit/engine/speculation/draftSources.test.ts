import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {LookupDrafts, PredictionDrafts} from "../../../../src/engine/speculation/draftSources.js";
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

describe("PredictionDrafts", () => {
    it("proposes the prediction from its start, and counts every token the reply reproduces", () => {
        const prediction = new PredictionDrafts(tokens(10, 11, 12, 13, 14));
        expect(prediction.propose(3)).toEqual([10, 11, 12]);
        prediction.observe(tokens(10, 11, 12));
        expect(prediction.propose(3)).toEqual([13, 14]);
        prediction.observe(tokens(13, 14, 99));
        expect(prediction.propose(3)).toEqual([]);
        expect([prediction.accepted, prediction.rejected]).toEqual([5, 0]);
    });

    it("loses the prediction where the reply departs from it and finds it again by the reply's last three tokens, forward of the edit", () => {
        // The reply replaces 13 with 50, 51 and goes on as predicted; 11 12 13 occurs twice.
        const prediction = new PredictionDrafts(tokens(11, 12, 13, 14, 15, 16, 17, 11, 12, 13, 18));
        prediction.observe(tokens(11, 12, 50, 51));
        expect(prediction.propose(2)).toEqual([]);
        prediction.observe(tokens(14, 15));
        expect(prediction.propose(2)).toEqual([]);
        prediction.observe(tokens(16));
        // 14 15 16 found: the prediction goes on after it.
        expect(prediction.propose(2)).toEqual([17, 11]);
        prediction.observe(tokens(17, 11, 12, 13, 18));
        // Of eleven predicted tokens, 13 (the third) never made it into the reply.
        expect([prediction.accepted, prediction.rejected]).toEqual([10, 1]);
    });

    it("rejects a wrong prediction whole", () => {
        const prediction = new PredictionDrafts(tokens(1, 2, 3, 4));
        prediction.observe(tokens(7, 8, 9, 7, 8, 9));
        expect([prediction.accepted, prediction.rejected]).toEqual([0, 4]);
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
