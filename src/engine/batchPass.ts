import type {Token} from "node-llama-cpp";
import type {Part} from "./batchComposition.js";
import type {NativeContext} from "./llamaInternals.js";
import {dropRejectedDraft} from "./speculation/draftRollback.js";
import {verifyDraft} from "./speculation/draftVerification.js";

/**
 * One compute pass of a composed batch (batchComposition.ts) through node-llama-cpp's native
 * context, node-llama-cpp's own bookkeeping after it, then the tokens for each part that ends its
 * step: one sampled token, or a draft's verified run (speculation/draftVerification.ts) with the
 * rejected rest rolled back out of the cache. `threadsFor(size)`: the threads a pass of that many
 * tokens runs on (a lone stream's step may take fewer: threads.ts).
 */
export async function decodeAndSample(
    native: NativeContext, decode: () => Promise<unknown>, batch: readonly Part[], threadsFor: (size: number) => number
): Promise<Array<PromiseSettledResult<Token[] | undefined>>> {
    const size = batch.reduce((sum, part) => sum + part.tokens.length, 0);
    native.initBatch(size);
    // A step's last token has an output, and so does each drafted token after it.
    const outputs = batch.map(({step: {state}, tokens, last, drafted}) => native.addToBatch(
        state._sequenceId, state._nextTokenIndex, Uint32Array.from(tokens),
        last ? Uint32Array.from({length: drafted + 1}, (_, index) => tokens.length - 1 - drafted + index) : new Uint32Array()
    ));
    native.setThreads(threadsFor(size));
    await decode();
    // node-llama-cpp's bookkeeping, which its erasing, prefix matching and prompt evaluation read.
    for (const {step: {state}, tokens} of batch) {
        state._nextTokenIndex += tokens.length;
        state._contextTokens.push(...tokens);
    }
    // Sampling reads this batch's outputs, so it happens before the lock lets another decode in.
    const sampled = await Promise.allSettled(batch.map(async ({step, last, drafted}, index) => {
        if (!last)
            return undefined;
        if (drafted === 0)
            return [await step.sampler.sample(native, outputs[index]![0]!)];
        const kept = await verifyDraft(step.draft.slice(0, drafted), (output) => step.sampler.sample(native, outputs[index]![output]!));
        dropRejectedDraft(native, step.state, drafted - (kept.length - 1));
        return kept;
    }));
    return sampled;
}
