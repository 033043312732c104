import type {LlamaContext, LlamaContextSequence} from "node-llama-cpp";
import {nativeContext, sequenceState, withContextLock} from "../llamaInternals.js";
import type {PromptImage} from "../preparedPrompt.js";
import type {NativeProjector} from "./nativeVision.js";

/**
 * Embeddings a causal image puts into the KV cache per hold of the context lock. Between two slices
 * the other streams take their next step: 576 embeddings in one go held them 440 ms (LLaVA 1.5's
 * shapes, 2 cores, a 7-8 ms step), a slice of 64 about 57 ms, and the whole image then took 510 ms
 * instead of 440. Not fewer than 64: llama.cpp's CPU flash-attention kernel takes a smaller batch
 * row by row, and slices of 32 took 3.3 s in all (docs/vision.md).
 */
const imageSlice = 64;

/**
 * Puts a prompt's image into a sequence at its current position: the vision tower runs first,
 * outside the context lock and on a thread of its own (seconds on a CPU, while the other streams
 * keep generating); then its embeddings go into the KV cache in slices, each under the lock
 * between two of the decode loop's batches (a non-causal image, Gemma 3's, in one).
 *
 * node-llama-cpp's bookkeeping then holds one placeholder per position the image took: its next
 * position and its token list stay equal in length, as everything it does with a sequence assumes
 * (erasing by position, adapting to a new prompt, copying a prefix to another sequence). Until the
 * image is whole its cells lie past that position, where nothing else reads or copies them.
 */
export class ImageEvaluator {
    public constructor(private readonly projector: NativeProjector, private readonly context: LlamaContext) {}

    /** Rejects with the signal's reason once aborted: an encode under way stops at its next check, a decode after its slice. */
    public async evaluate(sequence: LlamaContextSequence, image: PromptImage, signal: AbortSignal): Promise<void> {
        const {handle, index, nonCausal} = image.chunk;
        await this.projector.encode(handle, index, signal);
        const state = sequenceState(sequence);
        const native = nativeContext(this.context);
        const position = state._nextTokenIndex;
        const slice = nonCausal ? image.cells : Math.min(imageSlice, this.context.batchSize);
        for (let from = 0; from < image.cells; from += slice) {
            if (signal.aborted) {
                await withContextLock(this.context, async () => this.projector.discard(native, state._sequenceId, position));
                throw signal.reason;
            }
            await withContextLock(this.context, () =>
                this.projector.decode(native, handle, index, state._sequenceId, position, from, Math.min(slice, image.cells - from)));
        }
        await withContextLock(this.context, async () => {
            state._nextTokenIndex = position + image.positions;
            for (let added = 0; added < image.positions; added++)
                state._contextTokens.push(image.placeholder);
            // Hybrid, recurrent and sliding-window models keep state snapshots as a sequence grows, as after a batch.
            if (sequence.needsCheckpoints)
                await state._takeIntervalCheckpointIfNeededAfterBatch(state._nextTokenIndex + 1);
        });
    }
}

/** The image whose placeholders `position` falls strictly inside, if any: a cache may not be kept up to there. */
export function imageAround(images: readonly PromptImage[] | undefined, position: number): PromptImage | undefined {
    return images?.find((image) => image.start < position && position < image.start + image.positions);
}
