import {describe, expect, it} from "vitest";
import {DraftCostEstimate} from "../../../../src/engine/speculation/draftCostEstimate.js";

/** Times `count` passes of `ms` each, with `drafted` drafted tokens (0: plain steps). */
function timePasses(estimate: DraftCostEstimate, count: number, ms: number, drafted = 0): void {
    for (let pass = 0; pass < count; pass++)
        estimate.observe(ms, drafted);
}

describe("DraftCostEstimate", () => {
    it("keeps the prior until it has timed enough plain and drafted passes", () => {
        const estimate = new DraftCostEstimate(0.15);
        timePasses(estimate, 8, 10);
        timePasses(estimate, 3, 16, 3);
        expect(estimate.cost.token).toBe(0.15);
        estimate.observe(16, 3);
        expect(estimate.cost.token).toBeCloseTo(0.2);
    });

    it("measures a drafted token as its time over a plain step's, per token: high where a step is all overhead", () => {
        const estimate = new DraftCostEstimate(0.15);
        for (let step = 0; step < 20; step++) {
            estimate.observe(1, 0);
            estimate.observe(2.2, 2);
        }
        expect(estimate.cost.token).toBeCloseTo(0.6);
    });

    it("measures a pass's own cost as how much slower the plain step after it is", () => {
        const estimate = new DraftCostEstimate(0.15);
        timePasses(estimate, 8, 1);
        expect(estimate.cost.pass).toBe(0);
        for (let draft = 0; draft < 20; draft++) {
            estimate.observe(2.2, 2);
            estimate.observe(1.3, 0);
            timePasses(estimate, 2, 1);
        }
        // The slower step is the pass's, not a plain step's: plain steps stay 1 ms, and a token 0.6 of one.
        expect(estimate.cost.pass).toBeCloseTo(0.3);
        expect(estimate.cost.token).toBeCloseTo(0.6);
    });

    it("counts the plain step after an untimed pass (a prompt's, several streams') as neither a plain step nor a pass's cost", () => {
        const estimate = new DraftCostEstimate(0.15);
        timePasses(estimate, 8, 1);
        for (let draft = 0; draft < 20; draft++) {
            estimate.observe(2.2, 2);
            // The reply ends on its drafted pass; the next request's prompt runs untimed, and its first step is slow.
            estimate.untimed();
            estimate.observe(5, 0);
            timePasses(estimate, 2, 1);
        }
        expect(estimate.cost).toEqual({token: expect.closeTo(0.6) as number, pass: 0});
    });

    it("stays within bounds when timings are odd (a drafted pass faster than a plain one, or a stall)", () => {
        const fast = new DraftCostEstimate(0.15);
        const stalled = new DraftCostEstimate(0.15);
        for (let step = 0; step < 10; step++) {
            fast.observe(10, 0);
            fast.observe(9, 4);
            stalled.observe(1, 0);
            stalled.observe(100, 1);
        }
        expect(fast.cost.token).toBe(0.02);
        expect(stalled.cost.token).toBeCloseTo(2, 1);
    });

    it("ignores drafted passes timed before any plain one", () => {
        const estimate = new DraftCostEstimate(0.15);
        timePasses(estimate, 10, 50, 4);
        timePasses(estimate, 10, 10);
        expect(estimate.cost.token).toBe(0.15);
    });

    it("keeps a fixed cost (--draft-token-cost) whatever it times", () => {
        const estimate = new DraftCostEstimate(0.3, true);
        for (let step = 0; step < 20; step++) {
            estimate.observe(1, 0);
            estimate.observe(3, 2);
        }
        expect(estimate.cost).toEqual({token: 0.3, pass: 0});
    });

    it("does not let a first stalled drafted pass outweigh the ones after it", () => {
        const estimate = new DraftCostEstimate(0.15);
        timePasses(estimate, 8, 10);
        estimate.observe(500, 2);
        timePasses(estimate, 20, 12, 2);
        expect(estimate.cost.token).toBeLessThan(0.2);
    });

    it("ages a measured cost back towards the prior while no drafts are timed, so drafting is tried again", () => {
        const estimate = new DraftCostEstimate(0.15);
        timePasses(estimate, 8, 1);
        timePasses(estimate, 4, 10, 2);
        expect(estimate.cost.token).toBeGreaterThan(1.5);
        timePasses(estimate, 256, 1);
        // Not while drafts have been timed lately: then the figure is theirs.
        expect(estimate.cost.token).toBeGreaterThan(1.5);
        timePasses(estimate, 1000, 1);
        expect(estimate.cost.token).toBeLessThan(0.5);
    });
});
