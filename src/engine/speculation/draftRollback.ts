import type {LlamaContextSequence} from "node-llama-cpp";
import type {NativeContext, SequenceState} from "../llamaInternals.js";

/**
 * Takes a draft's rejected tail back out of a sequence, under the context lock the step was decoded
 * in: llama.cpp's cells from where the rejection began, and node-llama-cpp's bookkeeping (the
 * token list and next index its prefix matching and erasing read), so the sequence holds exactly
 * what plain decoding would have fed it. Attention models drop cells freely; a model whose state is
 * recurrent cannot, and is never given drafts (speculation/speculationPlan.ts).
 */
export function dropRejectedDraft(native: NativeContext, state: SequenceState, rejected: number): void {
    if (rejected <= 0)
        return;
    const start = state._nextTokenIndex - rejected;
    if (native.removeTokenCellsFromSequence?.(state._sequenceId, start, state._nextTokenIndex) !== true)
        throw new Error("llama.cpp could not drop a rejected draft from the sequence's cache");
    state._nextTokenIndex = start;
    state._contextTokens.length = start;
}

/**
 * A reply that ends inside a drafted run (at an end-of-generation token, a stop, its budget) keeps
 * in the sequence the run's tokens from the one it ended at: plain decoding never fed those (it
 * stops before feeding the token it ended at). They go, so the cache and the next turn's prefix
 * matching see exactly what plain decoding would have left.
 */
export async function dropUnfedTail(sequence: LlamaContextSequence, count: number): Promise<void> {
    if (count > 0)
        await sequence.eraseContextTokenRanges([{start: sequence.nextTokenIndex - count, end: sequence.nextTokenIndex}]);
}
