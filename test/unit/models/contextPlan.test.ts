import {describe, expect, it} from "vitest";
import {planContext} from "../../../src/models/contextPlan.js";
import type {KvCacheEstimate} from "../../../src/models/kvCacheEstimate.js";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** The KV cache of a model with `bytesPerToken` per cell of every sequence, padded to 256 cells as llama.cpp does. */
const linear = (bytesPerToken: number): KvCacheEstimate => (contextSize, sequences) => Math.ceil(contextSize / 256) * 256 * sequences * bytesPerToken;

/** A chat model of 4 GiB trained for `trained` tokens, whose KV cache takes 128 KiB per token (Llama-3.1-8B's shapes). */
function model(trained: number | null, extra: {kvCache?: KvCacheEstimate, sizeBytes?: number, capabilities?: Array<"chat" | "embeddings">} = {}) {
    return {trainedContextLength: trained, sizeBytes: 4 * GiB, capabilities: ["chat" as const], kvCache: linear(128 * 1024), ...extra};
}

describe("planContext", () => {
    it("gives a model trained for 32k or more a 32768-token context, and up to 4 sequences where memory allows", () => {
        // 4 sequences of 32768 tokens: 16 GiB of KV cache, within half of (40 - 4) GiB.
        expect(planContext(model(131072), {freeMemoryBytes: 40 * GiB})).toEqual({contextLength: 32768, parallel: 4, kvCacheBytes: 16 * GiB});
        expect(planContext(model(32768), {freeMemoryBytes: 40 * GiB}).contextLength).toBe(32768);
    });

    it("gives a model trained for less its trained context", () => {
        expect(planContext(model(8192), {freeMemoryBytes: 40 * GiB})).toMatchObject({contextLength: 8192, parallel: 4});
    });

    it("runs fewer sequences when their KV cache would take more than half the memory left beside the weights", () => {
        // (16 - 4) / 2 = 6 GiB: one sequence of 32768 tokens (4 GiB), not two.
        expect(planContext(model(131072), {freeMemoryBytes: 16 * GiB})).toEqual({contextLength: 32768, parallel: 1, kvCacheBytes: 4 * GiB});
        // (24 - 4) / 2 = 10 GiB: two.
        expect(planContext(model(131072), {freeMemoryBytes: 24 * GiB})).toMatchObject({parallel: 2, kvCacheBytes: 8 * GiB});
    });

    it("shrinks the default context to what one sequence's budget holds, in steps of 256, but not below 4096", () => {
        // (8 - 4) / 2 = 2 GiB: 16384 tokens of 128 KiB.
        expect(planContext(model(131072), {freeMemoryBytes: 8 * GiB})).toEqual({contextLength: 16384, parallel: 1, kvCacheBytes: 2 * GiB});
        expect(planContext(model(131072), {freeMemoryBytes: 8 * GiB + 200 * MiB}).contextLength).toBe(16384 + 256 * 3);
        expect(planContext(model(131072), {freeMemoryBytes: 4 * GiB})).toMatchObject({contextLength: 4096, parallel: 1});
        expect(planContext(model(2048), {freeMemoryBytes: 0})).toMatchObject({contextLength: 2048, parallel: 1});
    });

    it("lets --ctx-size and --parallel win, each capped only as before (the context at the trained one)", () => {
        expect(planContext(model(131072), {ctxSize: 4096, parallel: 8, freeMemoryBytes: 5 * GiB}))
            .toEqual({contextLength: 4096, parallel: 8, kvCacheBytes: 4 * GiB});
        expect(planContext(model(2048), {ctxSize: 4096, freeMemoryBytes: 40 * GiB})).toMatchObject({contextLength: 2048, parallel: 4});
        // --ctx-size alone: as many sequences of it as the budget holds.
        expect(planContext(model(131072), {ctxSize: 65536, freeMemoryBytes: 24 * GiB})).toMatchObject({contextLength: 65536, parallel: 1});
        // --parallel alone: the default context shrinks to fit that many sequences.
        expect(planContext(model(131072), {parallel: 4, freeMemoryBytes: 24 * GiB})).toMatchObject({contextLength: 20480, parallel: 4});
    });

    it("keeps the old 4096 for a model whose header gives no trained context", () => {
        expect(planContext(model(null), {freeMemoryBytes: 40 * GiB})).toMatchObject({contextLength: 4096, parallel: 4});
    });

    it("does not size to memory without an estimate of the cache, or without a measure of the memory", () => {
        expect(planContext(model(131072, {kvCache: undefined}), {freeMemoryBytes: 1})).toEqual({contextLength: 32768, parallel: 4, kvCacheBytes: null});
        expect(planContext(model(131072), {})).toEqual({contextLength: 32768, parallel: 4, kvCacheBytes: 16 * GiB});
    });

    it("gives an embedding model one request at a time and no KV cache", () => {
        expect(planContext(model(512, {capabilities: ["embeddings"]}), {freeMemoryBytes: 40 * GiB}))
            .toEqual({contextLength: 512, parallel: 1, kvCacheBytes: null});
    });
});
