import {describe, expect, it} from "vitest";
import {AcceptanceRate, draftLength} from "../../../../src/engine/speculation/draftLength.js";

describe("draftLength", () => {
    it("drafts the tokens whose chance of being used exceeds what they cost", () => {
        expect(draftLength(0.1, {token: 0.15, pass: 0}, 16)).toBe(0);
        expect(draftLength(0.15, {token: 0.15, pass: 0}, 16)).toBe(0);
        expect(draftLength(0.3, {token: 0.15, pass: 0}, 16)).toBe(1);
        expect(draftLength(0.7, {token: 0.15, pass: 0}, 16)).toBe(5);
        expect(draftLength(0.9, {token: 0.15, pass: 0}, 16)).toBe(16);
        expect(draftLength(1, {token: 0.15, pass: 0}, 16)).toBe(16);
        // Cheaper drafts (a GPU) are worth more of them.
        expect(draftLength(0.7, {token: 0.02, pass: 0}, 16)).toBe(10);
    });

    it("sends none where the draft would not save its pass's own cost as well", () => {
        // 0.5 and 0.25 are worth their 0.15 each; together 0.75, against 0.3 + 0.4 or 0.3 + 0.5.
        expect(draftLength(0.5, {token: 0.15, pass: 0.4}, 16)).toBe(2);
        expect(draftLength(0.5, {token: 0.15, pass: 0.5}, 16)).toBe(0);
        // A long likely draft pays for a costly pass.
        expect(draftLength(0.9, {token: 0.15, pass: 1}, 16)).toBe(16);
        expect(draftLength(1, {token: 0.5, pass: 2}, 16)).toBe(16);
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
