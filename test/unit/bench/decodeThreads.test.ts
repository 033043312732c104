import type {LlamaContext} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {useDecodeThreads} from "../../../bench/decodeThreads.js";

/** Records what node-llama-cpp's dispatch would pass to the native context. */
function nativeDouble() {
    const calls: Array<[string, number]> = [];
    return {
        calls,
        native: {
            initBatch: (size: number) => calls.push(["initBatch", size]),
            setThreads: (threads: number) => calls.push(["setThreads", threads])
        }
    };
}

describe("useDecodeThreads", () => {
    it("runs one-token batches with the decode threads and larger ones with the context's", () => {
        const {calls, native} = nativeDouble();
        expect(useDecodeThreads({_ctx: native} as unknown as LlamaContext, 1)).toBe(true);
        // What a dispatch does: size the batch, then set the threads, then decode.
        native.initBatch(512);
        native.setThreads(2);
        native.initBatch(1);
        native.setThreads(2);
        native.initBatch(4);
        native.setThreads(2);
        expect(calls).toEqual([["initBatch", 512], ["setThreads", 2], ["initBatch", 1], ["setThreads", 1], ["initBatch", 4], ["setThreads", 2]]);
    });

    it("never raises a count the dispatch lowered", () => {
        const {calls, native} = nativeDouble();
        useDecodeThreads({_ctx: native} as unknown as LlamaContext, 3);
        native.initBatch(1);
        native.setThreads(2);
        expect(calls.at(-1)).toEqual(["setThreads", 2]);
    });

    it("changes nothing when node-llama-cpp's internals are not there", () => {
        expect(useDecodeThreads({} as LlamaContext, 1)).toBe(false);
        expect(useDecodeThreads({_ctx: {setThreads: () => {}}} as unknown as LlamaContext, 1)).toBe(false);
    });
});
