import type {LlamaContext} from "node-llama-cpp";

/** What node-llama-cpp's context queues for each decode (the fields used here). */
type QueuedDecode = {
    sequenceId: number,
    logits: readonly boolean[],
    afterBatchAction?: (sequenceStateLength: number) => unknown
};
type ContextInternals = {
    _decodeTokens?: (queued: QueuedDecode, ...rest: unknown[]) => Promise<unknown>,
    _queuedDecodeSequenceIds?: Set<number>
};

/**
 * Keeps concurrent generations in one decode batch, as llama-server's slots are.
 *
 * node-llama-cpp starts the next batch with whatever is queued the moment the current batch's
 * tokens are sampled. The stream whose token was sampled last is still on its way back through its
 * generators, so it misses that batch and the next, and so on: with 4 streams, 170 of 173 batches
 * held 3 tokens. A batch of 4 costs little more than one of 3 (17.9 against 16.4 ms on the bench
 * model, 2 cores), so a stream that sat out gave away most of its share.
 *
 * Here, after a batch, the dispatch waits for each sequence that got an output from it to queue
 * its next token. It waits at most one event-loop turn: a stream that ended, or is busy elsewhere,
 * does not hold the others back.
 *
 * It wraps node-llama-cpp internals (3.x); if they are missing it changes nothing and returns false.
 */
export function useLockstepBatches(context: LlamaContext): boolean {
    const internals = context as unknown as ContextInternals;
    const decodeTokens = internals._decodeTokens;
    const queuedIds = internals._queuedDecodeSequenceIds;
    if (typeof decodeTokens !== "function" || !(queuedIds instanceof Set))
        return false;

    let awaited: {sequenceId: number, resolve(): void} | null = null;
    const nextTokenQueued = (sequenceId: number): Promise<void> | void => {
        if (queuedIds.has(sequenceId))
            return;
        return new Promise<void>((resolve) => {
            awaited = {sequenceId, resolve};
            setImmediate(resolve);
        });
    };

    try {
        Object.defineProperty(context, "_decodeTokens", {
            configurable: true,
            value: (queued: QueuedDecode, ...rest: unknown[]) => {
                const afterBatchAction = queued.afterBatchAction;
                const wantsOutput = queued.logits.includes(true);
                const decoded = decodeTokens.call(context, {
                    ...queued,
                    afterBatchAction: async (sequenceStateLength: number) => {
                        await afterBatchAction?.(sequenceStateLength);
                        if (wantsOutput)
                            await nextTokenQueued(queued.sequenceId);
                    }
                }, ...rest);
                if (awaited?.sequenceId === queued.sequenceId) {
                    awaited.resolve();
                    awaited = null;
                }
                return decoded;
            }
        });
        return true;
    } catch {
        return false;
    }
}
