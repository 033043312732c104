import type {LlamaContext} from "node-llama-cpp";

/** What node-llama-cpp's context queues for each decode (the fields used here). */
type QueuedDecode = {sequenceId: number, logits: readonly boolean[]};
type ContextInternals = {
    _decodeTokens?: (queued: QueuedDecode, ...rest: unknown[]) => Promise<unknown>,
    _queuedDecodes?: QueuedDecode[],
    _queuedDecodeSequenceIds?: Set<number>
};

/**
 * Keeps concurrent generations in one decode batch, as llama-server's slots are, and lets go of
 * node-llama-cpp's context lock between batches.
 *
 * node-llama-cpp's dispatch loop holds the context lock and decodes batch after batch while
 * anything is queued, starting each one the moment the last token of the previous one is sampled:
 * - the stream sampled last is still on its way back through its generators, so it misses that
 *   batch, and the next: with 4 streams, 170 of 173 batches held 3 tokens, though a batch of 4
 *   costs little more than one of 3 (17.9 against 16.4 ms, bench model, 2 cores);
 * - with two streams or more something is always queued, so the lock is never released, and a
 *   new request that must clear a sequence's old tokens (which takes the lock) waited for the
 *   other streams to end.
 *
 * So a sequence coming back for its next token is held here until every sequence of the same
 * step has come back or ended (one that was handed its token and did not come back within that
 * event-loop turn has ended), then all are queued at once and dispatched: the loop has found
 * nothing queued after the batch and let go of the lock, so whoever waited for it goes first.
 *
 * The queue is also kept in sequence order, which node-llama-cpp's batch follows. Its KV cache
 * has one stream per sequence, and llama.cpp then puts sequences in one compute pass only while
 * their ids go up by one in batch order (`llama_batch_allocr::split_equal`): a step ordered
 * 1, 0, 2, 3 runs as two passes, {1, 2, 3} then {0}, and took 28–34 ms instead of 18 (4 streams,
 * bench model, 2 cores). Streams sample in batch order and come back in it, so one new request
 * queued ahead of a step's held sequences left every later step of that batch split.
 *
 * It wraps node-llama-cpp internals (3.x); if they are missing it changes nothing and returns false.
 */
export function useLockstepBatches(context: LlamaContext): boolean {
    const internals = context as unknown as ContextInternals;
    const decodeTokens = internals._decodeTokens;
    const queue = internals._queuedDecodes;
    const queuedIds = internals._queuedDecodeSequenceIds;
    if (typeof decodeTokens !== "function" || !Array.isArray(queue) || !(queuedIds instanceof Set))
        return false;

    /** Sequences whose decode wants an output, and whether it has been handed to them. */
    const midStep = new Map<number, {delivered: boolean}>();
    const held: Array<() => void> = [];
    let checkScheduled = false;

    const send = (queued: QueuedDecode, rest: unknown[]): Promise<unknown> => {
        // node-llama-cpp queues the decode before this returns.
        const decoded = decodeTokens.call(context, queued, ...rest);
        queue.sort((a, b) => a.sequenceId - b.sequenceId);
        if (queued.logits.includes(true)) {
            const step = {delivered: false};
            midStep.set(queued.sequenceId, step);
            const settle = () => {
                step.delivered = true;
                scheduleCheck();
            };
            decoded.then(settle, settle);
        }
        return decoded;
    };

    const scheduleCheck = () => {
        if (checkScheduled || held.length === 0)
            return;
        checkScheduled = true;
        setImmediate(releaseWhenStepDone);
    };

    const releaseWhenStepDone = () => {
        checkScheduled = false;
        for (const [sequenceId, step] of midStep) {
            if (step.delivered)
                midStep.delete(sequenceId); // handed its token a turn ago and not back: it ended
            else if (queuedIds.has(sequenceId))
                continue; // not dispatched yet (a new prompt): it joins the held ones' batch
            else
                return; // still being decoded or sampled: its delivery checks again
        }
        for (const release of held.splice(0))
            release();
        context.dispatchPendingBatch();
    };

    try {
        Object.defineProperty(context, "_decodeTokens", {
            configurable: true,
            value: (queued: QueuedDecode, ...rest: unknown[]) => {
                // A prompt chunk wants no output, and a generation's first decode follows no
                // step of its own: neither waits.
                if (!queued.logits.includes(true) || midStep.get(queued.sequenceId)?.delivered !== true)
                    return send(queued, rest);
                midStep.delete(queued.sequenceId);
                return new Promise((resolve, reject) => {
                    held.push(() => void send(queued, rest).then(resolve, reject));
                    scheduleCheck();
                });
            }
        });
        return true;
    } catch {
        return false;
    }
}
