import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {DraftModelSpeculation} from "../../../../src/engine/speculation/draftModelSpeculation.js";
import {ModelDrafts, type DraftContinuation, type DraftModelLink} from "../../../../src/engine/speculation/modelDrafts.js";

/** A draft model double: it continues any history with `next(last)` repeatedly, and records each history it was asked to warm with and to continue. */
function draftModel(next: (last: number) => number): DraftContinuation & {asked: Array<{history: number[], count: number}>, warmed: number[][]} {
    const asked: Array<{history: number[], count: number}> = [];
    const warmed: number[][] = [];
    return {
        asked,
        warmed,
        warm: async (history) => {
            warmed.push([...history]);
        },
        continue: async (history, count) => {
            asked.push({history: [...history], count});
            const drafted: Token[] = [];
            let last = history.at(-1)!;
            while (drafted.length < count)
                drafted.push(last = next(last) as Token);
            return drafted;
        }
    };
}

const link = (stepCost: number, tokens?: number): DraftModelLink => ({sequenceFor: () => undefined, stepCost, ...(tokens == null ? {} : {tokens})});
const tokens = (...ids: number[]) => ids as Token[];
/** A drafted token at 0.15 of a target step, and no cost of its own to a pass. */
const cost = {token: 0.15, pass: 0};

describe("DraftModelSpeculation", () => {
    it("drafts a fixed length from the target's whole history, and counts what the target kept", async () => {
        const model = draftModel((last) => last + 1);
        const speculation = new DraftModelSpeculation(new ModelDrafts(model, tokens(10, 11)), link(1, 3), cost);
        expect(await speculation.draft(16)).toEqual([12, 13, 14]);
        // The target kept 12, then sampled 20 where the draft said 13.
        speculation.settle(tokens(12, 20));
        expect(speculation.counts).toEqual({drafted: 3, accepted: 1});
        expect(await speculation.draft(16)).toEqual([21, 22, 23]);
        expect(model.asked.map(({history}) => history)).toEqual([[10, 11], [10, 11, 12, 20]]);
        // It read the prompt as the reply began, before it was first asked for a draft.
        expect(model.warmed).toEqual([[10, 11]]);
    });

    it("never drafts past the reply's budget", async () => {
        const speculation = new DraftModelSpeculation(new ModelDrafts(draftModel((last) => last + 1), tokens(1)), link(0.05, 8), cost);
        expect(await speculation.draft(2)).toEqual([2, 3]);
        speculation.settle(tokens(2, 3, 4));
        expect(await speculation.draft(0)).toEqual([]);
    });

    it("adapts its length to acceptance against its cost, and a draft as large as its target never pays", async () => {
        const small = new DraftModelSpeculation(new ModelDrafts(draftModel((last) => last + 1), tokens(1)), link(0.05), cost);
        // Believed 0.6 at first: 3 tokens pay at a cost of 0.2 each (0.6^3 > 0.2 > 0.6^4).
        expect(await small.draft(16)).toHaveLength(3);
        small.settle(tokens(2, 3, 4, 5));
        expect((await small.draft(16)).length).toBeGreaterThan(3);

        const same = draftModel((last) => last + 1);
        const itself = new DraftModelSpeculation(new ModelDrafts(same, tokens(1)), link(1), cost);
        expect(await itself.draft(16)).toEqual([]);
    });

    it("stops drafting once its guesses are wrong, and tries one token now and then to start again", async () => {
        let right = false;
        const model = draftModel((last) => right ? last + 1 : 999);
        const speculation = new DraftModelSpeculation(new ModelDrafts(model, tokens(1)), link(0.05), cost);
        let last = 1;
        const step = async () => {
            const draft = await speculation.draft(16);
            speculation.settle(tokens(++last));
            return draft;
        };
        const drafts = [];
        for (let index = 0; index < 12; index++)
            drafts.push((await step()).length);
        // Wrong at once: after a draft or two it stops, and only probes (one guess, not sent) every 8th step.
        expect(drafts.slice(0, 2).every((length) => length > 0)).toBe(true);
        expect(drafts.slice(4)).toEqual(Array(8).fill(0));
        expect(model.asked.slice(-1)[0]!.count).toBe(1);
        const drafted = speculation.counts.drafted;
        right = true;
        // Its probes come true: it drafts again.
        const later = [];
        for (let index = 0; index < 40; index++)
            later.push((await step()).length);
        expect(later.some((length) => length > 0)).toBe(true);
        expect(speculation.counts.drafted).toBeGreaterThan(drafted);
    });

    it("stops drafting for the reply when the draft model fails, and the reply goes on", async () => {
        const failing: DraftContinuation = {warm: async () => {}, continue: () => Promise.reject(new Error("the draft's context is full"))};
        const speculation = new DraftModelSpeculation(new ModelDrafts(failing, tokens(1)), link(0.05, 4), cost);
        expect(await speculation.draft(16)).toEqual([]);
        speculation.settle(tokens(2));
        expect(await speculation.draft(16)).toEqual([]);
        expect(speculation.counts).toEqual({drafted: 0, accepted: 0});
        const coldModel = draftModel((last) => last + 1);
        const cold = new DraftModelSpeculation(new ModelDrafts({...coldModel, warm: () => Promise.reject(new Error("no memory"))}, tokens(1)), link(0.05, 4), cost);
        expect(await cold.draft(16)).toEqual([]);
        expect(coldModel.asked).toEqual([]);
    });

    it("sits out a reply whose prompt holds an image (its placeholders are no vocabulary's tokens)", async () => {
        const model = draftModel((last) => last + 1);
        const speculation = new DraftModelSpeculation(new ModelDrafts(model, tokens(1, -1, -2, 5)), link(0.05, 4), cost);
        expect(await speculation.draft(16)).toEqual([]);
        expect(model.warmed).toEqual([]);
        expect(model.asked).toEqual([]);
    });

    it("drafts less where other streams share the batch (its rows slow them too)", async () => {
        const alone = new DraftModelSpeculation(new ModelDrafts(draftModel((last) => last + 1), tokens(1)), link(0.05), cost);
        const beside = new DraftModelSpeculation(new ModelDrafts(draftModel((last) => last + 1), tokens(1)), link(0.05), cost);
        expect(await alone.draft(16, 1)).toHaveLength(3);
        // At 0.15 a row beside three other streams costs 0.41 of their tokens, plus the draft step: 0.6^1 > 0.46 > 0.6^2.
        expect(await beside.draft(16, 4)).toHaveLength(1);
    });
});

