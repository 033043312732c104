import type {Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {verifyDraft} from "../../../../src/engine/speculation/draftVerification.js";

/** A sampler double: the token it samples at each output, and the outputs it was asked for. */
function sampler(tokens: number[]) {
    const asked: number[] = [];
    return {asked, sample: async (output: number) => {
        asked.push(output);
        return tokens[output] as Token;
    }};
}

describe("verifyDraft", () => {
    it("keeps an accepted draft and the token sampled after it", async () => {
        const {asked, sample} = sampler([1, 2, 3, 4]);
        await expect(verifyDraft([1, 2, 3] as Token[], sample)).resolves.toEqual([1, 2, 3, 4]);
        expect(asked).toEqual([0, 1, 2, 3]);
    });

    it("stops at the first token that differs from the draft, keeps it, and samples nothing after it", async () => {
        const {asked, sample} = sampler([1, 7, 3, 4]);
        await expect(verifyDraft([1, 2, 3] as Token[], sample)).resolves.toEqual([1, 7]);
        // Each position sampled once, in order, as plain decoding would: the sampler's state (random, grammar) is as without a draft.
        expect(asked).toEqual([0, 1]);
    });

    it("keeps one token when the first guess is wrong, and samples only once without a draft", async () => {
        await expect(verifyDraft([5] as Token[], sampler([6, 5]).sample)).resolves.toEqual([6]);
        const {asked, sample} = sampler([9]);
        await expect(verifyDraft([], sample)).resolves.toEqual([9]);
        expect(asked).toEqual([0]);
    });

    it("passes a sampler's failure on", async () => {
        await expect(verifyDraft([1] as Token[], async () => {
            throw new Error("llama.cpp sampled no token");
        })).rejects.toThrow("sampled no token");
    });
});
