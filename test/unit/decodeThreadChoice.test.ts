import {describe, expect, it} from "vitest";
import {DecodeThreadChoice, type DecodeThreadSettings} from "../../src/engine/decodeThreadChoice.js";

const settings: DecodeThreadSettings = {minInterval: 4, maxInterval: 16, probeSteps: 2, window: 4, margin: 0.1, giveUpAfter: 2};

/** Runs `steps` one-token steps, each taking what `msFor` says for its thread count; returns the counts used. */
function run(choice: DecodeThreadChoice, steps: number, msFor: (threads: number) => number): number[] {
    const used: number[] = [];
    for (let step = 0; step < steps; step++) {
        const threads = choice.next();
        used.push(threads);
        choice.record(threads, msFor(threads));
    }
    return used;
}

describe("DecodeThreadChoice", () => {
    it("never changes a fixed count (--decode-threads) nor a default of one thread", () => {
        expect(run(DecodeThreadChoice.fixed(2), 50, (threads) => threads === 2 ? 100 : 1)).toEqual(Array(50).fill(2));
        expect(run(DecodeThreadChoice.measured(1), 50, () => 5)).toEqual(Array(50).fill(1));
    });

    it("tries one thread for a few steps after a while and keeps the default when it is not faster", () => {
        const choice = new DecodeThreadChoice([2, 1], settings);
        const used = run(choice, 9, (threads) => threads === 2 ? 10 : 16);
        // The probe's first step is a warm-up, not counted.
        expect(used).toEqual([2, 2, 2, 2, 1, 1, 1, 2, 2]);
        expect(choice.current).toBe(2);
    });

    it("waits twice as long after each probe that confirms the choice, up to maxInterval", () => {
        const used = run(new DecodeThreadChoice([2, 1], settings), 80, (threads) => threads === 2 ? 10 : 16);
        const probesAt = used.flatMap((threads, step) => threads === 1 && used[step - 1] !== 1 ? [step] : []);
        // 4 steps, then 8, 16, 16, 16 between probes (each probe 3 steps long, a warm-up and 2).
        expect(probesAt).toEqual([4, 15, 34, 53, 72]);
    });

    it("switches to one thread when its probe is faster by the margin, then probes the default again soon", () => {
        const choice = new DecodeThreadChoice([2, 1], settings);
        const used = run(choice, 16, (threads) => threads === 2 ? 18 : 12);
        expect(used).toEqual([2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1]);
        expect(choice.current).toBe(1);
    });

    it("ends a probe at its first step when that is more than twice as slow as the preferred count", () => {
        const choice = new DecodeThreadChoice([2, 1], settings);
        const used = run(choice, 22, (threads) => threads === 2 ? 60 : 8);
        // Switched after the first probe; each probe of 2 threads since ends at its first counted step.
        expect(used).toEqual([2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2]);
        expect(choice.current).toBe(1);
    });

    it("goes back to the default once it is the faster again (the machine quietened)", () => {
        const choice = new DecodeThreadChoice([2, 1], settings);
        let busy = true;
        run(choice, 10, (threads) => threads === 2 ? (busy ? 60 : 10) : 16);
        expect(choice.current).toBe(1);
        busy = false;
        run(choice, 20, (threads) => threads === 2 ? (busy ? 60 : 10) : 16);
        expect(choice.current).toBe(2);
    });

    it("does not switch for a difference within the margin", () => {
        const choice = new DecodeThreadChoice([2, 1], settings);
        run(choice, 40, (threads) => threads === 2 ? 10 : 9.5);
        expect(choice.current).toBe(2);
    });
});
