import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import type {DraftSource} from "../../../../src/engine/speculation/draftSources.js";
import {sharedCost, Speculation} from "../../../../src/engine/speculation/speculation.js";

/** A source that always guesses the same run, and records what the reply became. */
function fixedSource(name: DraftSource["name"], guess: number[]): DraftSource & {seen: Token[]} {
    const seen: Token[] = [];
    return {name, seen, propose: (count) => guess.slice(0, count) as Token[], observe: (tokens) => seen.push(...tokens)};
}

/** A drafted token at 0.15 of a step, and no cost of its own to a pass. */
const cost = {token: 0.15, pass: 0};

describe("Speculation", () => {
    it("drafts from the first source with a guess and counts what was drafted and accepted, by source", () => {
        const prediction = fixedSource("prediction", [1, 2, 3, 4]);
        const lookup = fixedSource("lookup", [5, 6]);
        const speculation = new Speculation([{source: prediction, prior: 0.9}, {source: lookup, prior: 0.9}], cost);
        expect(speculation.draft(16)).toEqual([1, 2, 3, 4]);
        speculation.settle([1, 2, 9] as Token[]);
        expect(speculation.counts).toEqual({prediction: {drafted: 4, accepted: 2}});
        // Every source follows the reply.
        expect(prediction.seen).toEqual([1, 2, 9]);
        expect(lookup.seen).toEqual([1, 2, 9]);
    });

    it("drafts from the source whose guesses have come true most often when several have one", () => {
        const lookup = fixedSource("lookup", [5, 6, 7]);
        const pool = fixedSource("pool", [1, 2, 3]);
        const speculation = new Speculation([{source: lookup, prior: 0.4}, {source: pool, prior: 0.35}], cost);
        expect(speculation.draft(16)).toEqual([5, 6]);
        // The pool's first token came true, lookup's did not: the pool drafts next.
        speculation.settle([1] as Token[]);
        expect(speculation.draft(16)[0]).toBe(1);
        expect(speculation.counts).toEqual({lookup: {drafted: 2, accepted: 0}});
    });

    it("lets a long guess draft over a short one from a source right a little more often", () => {
        // The pool's chain ends after two tokens; the prediction goes on for twelve.
        const prediction = fixedSource("prediction", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        const pool = fixedSource("pool", [1, 2]);
        const speculation = new Speculation([{source: prediction, prior: 0.9}, {source: pool, prior: 0.95}], cost);
        expect(speculation.draft(16)).toHaveLength(12);
        speculation.settle([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13] as Token[]);
        expect(speculation.counts).toEqual({prediction: {drafted: 12, accepted: 12}});
    });

    it("drafts less where other streams share the batch: a drafted row slows them all", () => {
        expect(sharedCost(cost, 1)).toEqual(cost);
        expect(sharedCost({token: 0.15, pass: 0.1}, 4).token).toBeCloseTo(0.6 / 1.45, 10);
        expect(sharedCost({token: 0.15, pass: 0.1}, 4).pass).toBeCloseTo(0.4 / 1.45, 10);
        expect(sharedCost(cost, 0)).toEqual(cost);
        // At a 0.5 acceptance: 2 tokens alone (0.5^2 > 0.15), 1 beside three other streams (0.5^2 < 0.41).
        const alone = new Speculation([{source: fixedSource("lookup", [1, 2, 3, 4, 5]), prior: 0.5}], cost);
        expect(alone.draft(16, 1)).toHaveLength(2);
        const shared = new Speculation([{source: fixedSource("lookup", [1, 2, 3, 4, 5]), prior: 0.5}], cost);
        expect(shared.draft(16, 4)).toHaveLength(1);
    });

    it("never drafts past the reply's budget", () => {
        const speculation = new Speculation([{source: fixedSource("prediction", [1, 2, 3, 4]), prior: 0.9}], cost);
        expect(speculation.draft(2)).toEqual([1, 2]);
        speculation.settle([1, 2, 3] as Token[]);
        expect(speculation.draft(0)).toEqual([]);
    });

    it("stops drafting from a source whose guesses keep failing, and starts again once its first guessed token keeps coming true", () => {
        const source = fixedSource("lookup", [7, 7, 7]);
        const speculation = new Speculation([{source, prior: 0.4}], cost);
        const drafts: number[] = [];
        for (let index = 0; index < 6; index++) {
            drafts.push(speculation.draft(16).length);
            speculation.settle([1] as Token[]);
        }
        expect(drafts[0]).toBeGreaterThan(0);
        expect(drafts.slice(-2)).toEqual([0, 0]);
        // Undrafted, its guess is still scored against the reply, for free.
        for (let index = 0; index < 6; index++) {
            speculation.draft(16);
            speculation.settle([7] as Token[]);
        }
        expect(speculation.draft(16).length).toBeGreaterThan(0);
    });
    it("holds back a source whose drafts do not pay while its rate still calls for them, and drafts again once they would", () => {
        // Its first guessed token always comes true, the rest not until step 40; the reply is all 1s.
        let right = false;
        const source: DraftSource = {name: "lookup", propose: (count) => Array.from({length: count}, (_, index) => index === 0 || right ? 1 : 9) as Token[], observe: () => {}};
        const speculation = new Speculation([{source, prior: 0.4}], {token: 0.3, pass: 0.6});
        const lengths: number[] = [];
        for (let step = 0; step < 80; step++) {
            right = step >= 40;
            const draft = speculation.draft(1000);
            const kept = [1];
            while (kept.length <= draft.length && draft[kept.length - 1] === 1)
                kept.push(1);
            speculation.settle(kept as Token[]);
            lengths.push(draft.length);
        }
        // Its drafts save 1 token for 1.5 steps: sent at first (the rate, fed its right first tokens, asks for 3)…
        expect(lengths.slice(0, 20).filter((length) => length > 0).length).toBeGreaterThan(5);
        // …held back by the ledger once it has judged enough of them, though the rate still calls for them…
        expect(lengths.slice(32, 40)).toEqual(Array(8).fill(0));
        // …and sent again once the drafts it goes on judging, unsent, would have paid.
        expect(lengths.slice(70)).toEqual(Array(10).fill(16));
    });

    it("sends a guess shorter than the length asked for only if it pays at its own length", () => {
        // At 0.7 a draft of 3 pays (1.53 saved for 0.5 + 0.9), a one-token guess does not (0.7 for 0.8).
        const cost = {token: 0.3, pass: 0.5};
        const long = new Speculation([{source: fixedSource("pool", [1, 2, 3]), prior: 0.7}], cost);
        expect(long.draft(16)).toHaveLength(3);
        const short = new Speculation([{source: fixedSource("pool", [1]), prior: 0.7}], cost);
        expect(short.draft(16)).toEqual([]);
        // Nor when the reply's budget cuts it short.
        expect(long.draft(1)).toEqual([]);
    });
});
