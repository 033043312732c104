import type {LlamaModel, Token} from "node-llama-cpp";
import {isImagePlaceholder} from "./vision/imagePrompt.js";
import type {ImageEvaluator} from "./vision/imageEvaluation.js";
import type {GenerationParts} from "./llamaModelParts.js";
import type {ContextLoras} from "./contextLoras.js";
import {partitionUnderAdapters, type LoraScales} from "./loraScales.js";
import {takeLongerPrefix} from "./prefixSharing.js";
import {claimCache} from "./cachePartitions.js";
import type {ModelPromptCache} from "./promptCache/modelPromptCache.js";
import {forgetUnevaluatedTail, generateOnSequence} from "./sequenceGeneration.js";
import type {SequenceLease} from "./loadedModel.js";
import type {PreparedPrompt} from "./preparedPrompt.js";
import type {CachePartition, GenerationOptions} from "./generationOptions.js";

/** What a lease needs of its loaded model (llamaLoadedModel.ts). */
export type LeaseSource = {
    model: LlamaModel,
    generation: GenerationParts,
    promptCache: ModelPromptCache | null,
    images?: ImageEvaluator,
    /** The model's LoRA adapters on its context; null when it has none. */
    loras: ContextLoras | null
};

/**
 * Leases one of the model's sequences for a request and readies it for the prompt: the sequence
 * sharing the longest cached prefix (sequencePool.ts), the adapter scales it runs under set on the
 * context (contextLoras.ts), what it held and this prompt will not keep saved first, then a longer
 * cached prefix taken from another sequence or restored from the prompt cache. Every cache it reads
 * is of the request's partition under its adapter set: KV cells computed under other LoRA scales
 * are other numbers.
 */
export async function leaseSequence(
    source: LeaseSource, prompt: PreparedPrompt, signal: AbortSignal, requestPartition?: CachePartition, scales?: LoraScales
): Promise<SequenceLease> {
    const {model, generation: {pool, sequences, steps, grammars}, promptCache: cache, loras} = source;
    const adapterSet = loras == null || scales == null ? "" : loras.keyOf(scales);
    const cachePartition = partitionUnderAdapters(requestPartition, adapterSet);
    const sequence = await pool.acquire(prompt.tokens, signal, cachePartition, adapterSet);
    try {
        await loras?.use(scales ?? loras.defaults);
        // What this prompt will not keep of the sequence's tokens is saved before anything replaces them.
        await cache?.safely("save a prefix", () => cache.keepBeforeReuse(sequence, prompt.tokens, cachePartition), undefined);
        // Another partition's tokens are erased before this request's prompt is compared with them.
        if (await claimCache(sequence, cachePartition))
            forgetUnevaluatedTail(sequence);
        if (await takeLongerPrefix(sequence, sequences, prompt.tokens, cachePartition) > 0)
            forgetUnevaluatedTail(sequence);
        if (await cache?.safely("restore a prefix", () => cache.restore(sequence, prompt.tokens, cachePartition), false))
            forgetUnevaluatedTail(sequence);
    } catch (error) {
        pool.release(sequence);
        throw error;
    }
    // An image's placeholders are no vocabulary's tokens: they read as nothing.
    const detokenize = (tokens: readonly Token[], lastTokens: readonly Token[]) =>
        model.detokenize(tokens.filter((token) => !isImagePlaceholder(token)), false, lastTokens.filter((token) => !isImagePlaceholder(token)));
    const {images} = source;
    let released = false;
    return {
        generate: (leasedPrompt: PreparedPrompt, options: GenerationOptions, generationSignal: AbortSignal) =>
            generateOnSequence(sequence, {steps, detokenize, grammars, images}, leasedPrompt, options, generationSignal),
        release: () => {
            if (!released) {
                released = true;
                // A long new prompt is saved before the sequence serves another request.
                const kept = cache?.keepAfterGeneration(sequence, cachePartition);
                if (kept == null)
                    pool.release(sequence);
                else
                    void kept.then(() => pool.release(sequence));
            }
        }
    };
}
