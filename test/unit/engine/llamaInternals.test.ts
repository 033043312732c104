import type {LlamaContext, LlamaContextSequence, LlamaModel} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {assertSharedLockModule, createNativeSampler, nativeContext, sequenceState} from "../../../src/engine/llamaInternals.js";

const changed = /node-llama-cpp 3\.22's internals, and .+ changed: install the node-llama-cpp version package\.json names/;

describe("node-llama-cpp internals", () => {
    it("names what moved when an upgrade takes away a member the decode loop uses", () => {
        const native = {initBatch() {}, addToBatch() {}, decodeBatch() {}, sampleToken() {}};
        expect(() => nativeContext({_ctx: native} as unknown as LlamaContext)).toThrow(/the native context's setThreads changed/);
        expect(() => nativeContext({} as LlamaContext)).toThrow(changed);
        expect(() => sequenceState({_sequenceId: 0, _nextTokenIndex: 0} as unknown as LlamaContextSequence)).toThrow(/a context sequence's state changed/);
        expect(() => createNativeSampler({_model: {}} as unknown as LlamaModel)).toThrow(/the native sampler changed/);
    });

    it("shares node-llama-cpp's copy of lifecycle-utils, whose module state holds the context lock", () => {
        expect(() => assertSharedLockModule()).not.toThrow();
    });
});
