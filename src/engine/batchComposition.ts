import type {LlamaContextSequence, Token} from "node-llama-cpp";
import type {SequenceState} from "./llamaInternals.js";
import type {StepSampler} from "./stepSampler.js";

/** A generation's request for its next token(s), queued in the decode loop (decodeSteps.ts). */
export type Step = {
    sequence: LlamaContextSequence, state: SequenceState, tokens: readonly Token[], sampler: StepSampler,
    /** Tokens guessed to follow (speculation/): fed after `tokens`, each with an output to check it by. */
    draft: readonly Token[],
    resolve(tokens: Token[]): void, reject(error: unknown): void
};

/**
 * A step's share of one batch: all its tokens (`last`, then sampled) and the `drafted` tail of its
 * draft that fitted, or the head of one that does not fit.
 */
export type Part = {step: Step, tokens: readonly Token[], last: boolean, drafted: number};

/**
 * The next batch from the queued steps, at most `batchSize` tokens: whole steps, shortest first (a
 * generating stream's one token never waits behind a prompt), then as much of the next one as still
 * fits, without an output; its rest stays queued for the next batch (its `tokens` shortened), as
 * llama-server fills its batch with prompt after generation. Drafts take only the room left after
 * that. The batch is in sequence order: llama.cpp keeps sequences in one compute pass only while
 * their ids go up by one in batch order (`llama_batch_allocr::split_equal`).
 */
export function composeBatch(queue: readonly Step[], batchSize: number): {batch: Part[], waiting: Step[]} {
    const bySize = [...queue].sort((a, b) => a.tokens.length - b.tokens.length);
    let room = batchSize;
    const batch: Part[] = [];
    const waiting = bySize.filter((step) => {
        if (step.tokens.length > room)
            return true;
        room -= step.tokens.length;
        batch.push({step, tokens: step.tokens, last: true, drafted: 0});
        return false;
    });
    const split = waiting[0];
    if (split != null && room > 0) {
        batch.push({step: split, tokens: split.tokens.slice(0, room), last: false, drafted: 0});
        split.tokens = split.tokens.slice(room);
        room = 0;
    }
    // Speculation never pushes another stream's step, or a prompt, out of a batch.
    for (const part of batch) {
        const draft = part.step.draft.slice(0, room);
        if (!part.last || draft.length === 0)
            continue;
        room -= draft.length;
        part.tokens = [...part.tokens, ...draft];
        part.drafted = draft.length;
    }
    return {batch: batch.sort((a, b) => a.step.state._sequenceId - b.step.state._sequenceId), waiting};
}
