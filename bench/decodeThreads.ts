import type {LlamaContext} from "node-llama-cpp";

/** The two methods of node-llama-cpp's native context that a batch dispatch calls. */
type NativeBatching = {initBatch(size: number): unknown, setThreads(threads: number): unknown};

/**
 * For the in-process floor, which generates through node-llama-cpp's own `sequence.evaluate()`:
 * gives one-token batches (a single stream generating) their own thread count, as chatserve's
 * decode loop does (src/engine/decodeSteps.ts) and llama.cpp's n_threads vs n_threads_batch;
 * node-llama-cpp sets one count for both before every batch.
 *
 * How many, and why they can differ from prompt processing's: `resolveDecodeThreads` in src/engine/threads.ts.
 *
 * It wraps node-llama-cpp internals (`_ctx`, present in 3.x); if they are missing it changes
 * nothing and returns false: every batch then runs with the context's own thread count.
 */
export function useDecodeThreads(context: LlamaContext, decodeThreads: number): boolean {
    const native = (context as unknown as {_ctx?: Partial<NativeBatching>})._ctx;
    if (native == null || typeof native.initBatch !== "function" || typeof native.setThreads !== "function")
        return false;

    const initBatch = native.initBatch.bind(native);
    const setThreads = native.setThreads.bind(native);
    let batchSize = 0;
    try {
        // The native methods are read-only prototype properties: shadow them on the instance.
        Object.defineProperty(native, "initBatch", {
            configurable: true,
            value: (size: number) => {
                batchSize = size;
                return initBatch(size);
            }
        });
        Object.defineProperty(native, "setThreads", {
            configurable: true,
            value: (threads: number) => setThreads(batchSize === 1 ? Math.min(threads, decodeThreads) : threads)
        });
        return true;
    } catch {
        return false;
    }
}
