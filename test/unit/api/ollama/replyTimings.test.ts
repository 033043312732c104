// Ollama's counts and durations come from the request's own clock and the generation's result:
// nanoseconds, each stage its own span, nothing estimated.
import {describe, expect, it} from "vitest";
import {doneReason, ollamaMetrics} from "../../../../src/api/ollama/replyTimings.js";
import type {GenerationResult} from "../../../../src/engine/generationEvents.js";

const result = (extra: Partial<GenerationResult> = {}): GenerationResult =>
    ({finishReason: "stop", promptTokens: 30, cachedTokens: 10, completionTokens: 5, ...extra});

describe("Ollama's reply metrics", () => {
    it("splits the request into load, prompt evaluation and generation, in nanoseconds", () => {
        const metrics = ollamaMetrics(result({timing: {firstTokenAt: 1250, endedAt: 1500}}), {receivedAt: 1000, generationAt: 1100});
        expect(metrics).toEqual({
            total_duration: 500e6, load_duration: 100e6,
            prompt_eval_count: 30, prompt_eval_duration: 150e6,
            eval_count: 5, eval_duration: 250e6
        });
    });

    it("a reply that sampled no token spent its time on the prompt; a result without timing ends now", () => {
        expect(ollamaMetrics(result({completionTokens: 0, timing: {endedAt: 1300}}), {receivedAt: 1000, generationAt: 1100}))
            .toMatchObject({prompt_eval_duration: 200e6, eval_duration: 0, eval_count: 0});
        expect(ollamaMetrics(result(), {receivedAt: 1000, generationAt: 1000}, 1400)).toMatchObject({total_duration: 400e6});
    });

    it("done_reason: length when the limit cut the reply, stop otherwise (tool calls too)", () => {
        expect(doneReason(result({finishReason: "length"}))).toBe("length");
        expect(doneReason(result({finishReason: "toolCalls"}))).toBe("stop");
        expect(doneReason(result())).toBe("stop");
    });
});
