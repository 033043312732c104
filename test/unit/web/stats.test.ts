import {describe, expect, it} from "vitest";
import {formatStats, replyStats} from "../../../web/src/stats.js";

describe("replyStats", () => {
    it("times the first token from sending and the rest from the first token, with the server's counts", () => {
        const stats = replyStats(1000, 1250, 3250, {prompt_tokens: 30, completion_tokens: 41, total_tokens: 71}, 100);
        expect(stats.ttftMs).toBe(250);
        // 40 tokens after the first, over 2 s.
        expect(stats.tokensPerSecond).toBe(20);
        expect(stats.contextFill).toBe(0.71);
        expect(formatStats(stats)).toEqual(["first token 250 ms", "20.0 tok/s", "41 tokens", "context 71%"]);
    });

    it("says nothing it cannot know: no usage, no token, no context length", () => {
        const stats = replyStats(0, null, 500, null, null);
        expect(stats).toEqual({ttftMs: null, tokensPerSecond: null, contextFill: null, completionTokens: null, totalTokens: null});
        expect(formatStats(stats)).toEqual([]);
        expect(replyStats(0, 100, 100, {prompt_tokens: 1, completion_tokens: 1, total_tokens: 2}, 0).tokensPerSecond).toBeNull();
    });

    it("writes seconds past one second, and caps the context at full", () => {
        const stats = replyStats(0, 1500, 1500, {prompt_tokens: 200, completion_tokens: 1, total_tokens: 201}, 100);
        expect(formatStats(stats)).toEqual(["first token 1.5 s", "1 tokens", "context 100%"]);
    });
});
