import type {LlamaContext, LlamaContextSequence} from "node-llama-cpp";
import {nativeContext, sequenceState, withContextLock} from "../engine/llamaInternals.js";
import type {PromptImage} from "../engine/types.js";
import type {NativeProjector} from "./nativeVision.js";

/**
 * Puts a prompt's image into a sequence at its current position: the vision tower runs first,
 * outside the context lock and on a thread of its own (seconds on a CPU, while the other streams
 * keep generating); then its embeddings go into the KV cache under the lock, between two of the
 * decode loop's batches, as long as a text prompt of that many tokens takes.
 *
 * node-llama-cpp's bookkeeping then holds one placeholder per position the image took: its next
 * position and its token list stay equal in length, as everything it does with a sequence assumes
 * (erasing by position, adapting to a new prompt, copying a prefix to another sequence).
 */
export class ImageEvaluator {
    public constructor(private readonly projector: NativeProjector, private readonly context: LlamaContext) {}

    /** Rejects with the signal's reason once aborted: an encode under way stops at its next check. */
    public async evaluate(sequence: LlamaContextSequence, image: PromptImage, signal: AbortSignal): Promise<void> {
        const {handle, index} = image.chunk;
        await this.projector.encode(handle, index, signal);
        signal.throwIfAborted();
        const took = await withContextLock(this.context, async () => {
            const state = sequenceState(sequence);
            const position = state._nextTokenIndex;
            const next = await this.projector.decode(nativeContext(this.context), handle, index, state._sequenceId, position);
            if (next - position !== image.positions)
                return next - position;
            state._nextTokenIndex = next;
            for (let added = 0; added < image.positions; added++)
                state._contextTokens.push(image.placeholder);
            // Hybrid, recurrent and sliding-window models keep state snapshots as a sequence grows, as after a batch.
            if (sequence.needsCheckpoints)
                await state._takeIntervalCheckpointIfNeededAfterBatch(state._nextTokenIndex + 1);
            return image.positions;
        });
        if (took !== image.positions) {
            // The cells no longer match the bookkeeping: the sequence starts afresh (outside the lock, which clearing takes).
            await sequence.clearHistory();
            throw new Error(`the image took ${took} positions where its chunk said ${image.positions}`);
        }
    }
}

/** The image whose placeholders `position` falls strictly inside, if any: a cache may not be kept up to there. */
export function imageAround(images: readonly PromptImage[] | undefined, position: number): PromptImage | undefined {
    return images?.find((image) => image.start < position && position < image.start + image.positions);
}
