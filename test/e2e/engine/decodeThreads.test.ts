// The floor's decode-thread split (bench/decodeThreads.ts) against the real node-llama-cpp: it hooks in, and batches get the threads meant for them.
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {useDecodeThreads} from "../../../bench/decodeThreads.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";

describe("useDecodeThreads on node-llama-cpp", () => {
    it("runs the prompt batch with every thread and each generated token with the decode threads", async () => {
        const llama = await getLlama({build: "never", gpu: false, maxThreads: 0, logLevel: LlamaLogLevel.error});
        const model = await llama.loadModel({modelPath: await buildTinyChatModel()});
        const context = await model.createContext({contextSize: 256, threads: 2});
        try {
            expect(useDecodeThreads(context, 1)).toBe(true);
            // Read back the thread count llama.cpp holds at each decode.
            const native = (context as unknown as {_ctx: {decodeBatch(): Promise<void>, getThreads(): number}})._ctx;
            const decodeBatch = native.decodeBatch.bind(native);
            const threadsPerBatch: number[] = [];
            Object.defineProperty(native, "decodeBatch", {configurable: true, value: () => {
                threadsPerBatch.push(native.getThreads());
                return decodeBatch();
            }});

            let generated = 0;
            for await (const _token of context.getSequence().evaluate(model.tokenize("once upon a time"), {temperature: 0})) {
                if (++generated >= 4)
                    break;
            }
            expect(threadsPerBatch[0]).toBe(2);
            expect(threadsPerBatch.slice(1)).toEqual([1, 1, 1]);
        } finally {
            await context.dispose();
            await model.dispose();
        }
    });
});
