import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {DraftLedger} from "../../../../src/engine/speculation/draftLedger.js";

const tokens = (...ids: number[]) => ids as Token[];

describe("DraftLedger", () => {
    it("believes drafts pay until drafts it judged have not", () => {
        const ledger = new DraftLedger();
        expect(ledger.pays).toBe(true);
        // Drafts of 3 at a cost of 1 step each, wrong from their first token.
        for (let step = 0; step < 10; step++) {
            ledger.judge(tokens(1, 2, 3), 1);
            ledger.follow(tokens(9));
        }
        expect(ledger.pays).toBe(false);
    });

    it("judges a draft over the tokens that come next, however many steps they take", () => {
        const ledger = new DraftLedger();
        for (let step = 0; step < 10; step++) {
            ledger.judge(tokens(1, 2, 3), 1);
            ledger.follow(tokens(9));
        }
        // Not sent: its tokens come one step at a time, and all three come true (3 saved for 1).
        for (let draft = 0; draft < 20; draft++) {
            ledger.judge(tokens(1, 2, 3), 1);
            ledger.follow(tokens(1));
            ledger.follow(tokens(2));
            ledger.follow(tokens(3));
        }
        expect(ledger.pays).toBe(true);
    });

    it("credits a draft with its matching head only, and a draft sent with its step's kept tokens at once", () => {
        const ledger = new DraftLedger();
        // Each saves 1 of 4 guessed and costs 1.2: never worth it.
        for (let draft = 0; draft < 30; draft++) {
            ledger.judge(tokens(1, 2, 3, 4), 1.2);
            ledger.follow(tokens(1, 7));
        }
        expect(ledger.pays).toBe(false);
        // Each saves 4 (all accepted, then the next token sampled) for 1.2.
        for (let draft = 0; draft < 30; draft++) {
            ledger.judge(tokens(1, 2, 3, 4), 1.2);
            ledger.follow(tokens(1, 2, 3, 4, 5));
        }
        expect(ledger.pays).toBe(true);
    });

    it("follows several open drafts at once, each from the step it was made", () => {
        const ledger = new DraftLedger();
        for (let step = 0; step < 10; step++) {
            ledger.judge(tokens(1), 1);
            ledger.follow(tokens(9));
        }
        // Made a step apart, each guessing the two tokens after it: 1 2 3 4 comes, both come true.
        for (let round = 0; round < 40; round++) {
            ledger.judge(tokens(1, 2), 1.5);
            ledger.follow(tokens(1));
            ledger.judge(tokens(2, 3), 1.5);
            ledger.follow(tokens(2));
            ledger.follow(tokens(3));
        }
        // Each saved 2 for a cost of 1.5 (one judged against the wrong tokens would have saved none).
        expect(ledger.pays).toBe(true);
    });
});
