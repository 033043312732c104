import {describe, expect, it} from "vitest";
import {AcceptanceRate, draftLength} from "../../../../src/engine/speculation/draftLength.js";

describe("draftLength", () => {
    it("drafts the tokens whose chance of being used exceeds what they cost", () => {
        expect(draftLength(0.1, 0.15, 16)).toBe(0);
        expect(draftLength(0.15, 0.15, 16)).toBe(0);
        expect(draftLength(0.3, 0.15, 16)).toBe(1);
        expect(draftLength(0.7, 0.15, 16)).toBe(5);
        expect(draftLength(0.9, 0.15, 16)).toBe(16);
        expect(draftLength(1, 0.15, 16)).toBe(16);
        // Cheaper drafts (a GPU) are worth more of them.
        expect(draftLength(0.7, 0.02, 16)).toBe(10);
    });
});

describe("AcceptanceRate", () => {
    it("starts at its prior and follows what it observes, forgetting the old", () => {
        const rate = new AcceptanceRate(0.9, 2);
        expect(rate.rate).toBeCloseTo(0.9);
        for (let index = 0; index < 5; index++)
            rate.observe(0, true);
        expect(rate.rate).toBeLessThan(0.15);
        rate.observe(8, false);
        expect(rate.rate).toBeGreaterThan(0.5);
    });

    it("counts an accepted run and the one rejected token after it as tried, not the tokens never reached", () => {
        const rate = new AcceptanceRate(0.5, 2, 1);
        rate.observe(3, true);
        // (1 + 3) accepted of (2 + 4) tried.
        expect(rate.rate).toBeCloseTo(4 / 6);
    });
});
