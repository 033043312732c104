import type {ModelDescriptor} from "./modelDescriptor.js";
import {describeKvCacheTypes, isDefaultKvCache, type KvCacheTypes} from "../engine/kvCacheTypes.js";

/**
 * How big a model's context is and how many requests share it, decided once per model file before
 * it loads, so that /v1/models says before the first request what every request will get.
 * Why these defaults, and what they cost, measured: docs/context.md.
 */

export type ContextSettings = {
    /** --ctx-size; undefined: the trained context up to `defaultContextCap`, shrunk to fit the memory budget. */
    ctxSize?: number,
    /** --parallel; undefined: as many sequences (1 to `defaultParallelCap`) as the memory budget holds. */
    parallel?: number,
    /**
     * Memory free for models when the server started (RAM, or VRAM on a GPU backend); undefined:
     * unknown, and the defaults are not sized to memory (tests).
     */
    freeMemoryBytes?: number,
    /** What the KV cache stores keys and values as (--cache-type-k/-v, chatserve.json's cache_type_k/_v); absent: f16. */
    kvCacheTypes?: KvCacheTypes,
    /** The llama.cpp build can serve images (engine/vision/nativeVision.ts): a model's projector is planned only then. */
    vision?: boolean,
    /** What the server's image decodes under way may hold (engine/vision/imageMemory.ts), counted with each model that has a projector. */
    imageDecodeBytes?: number,
    /** --draft-model's file (resolved): the draft of every chat model but itself that chatserve.json gives none. */
    draftModel?: string
};

export type ContextPlan = {
    /** Tokens each request gets, prompt and reply together. */
    contextLength: number,
    /** Requests generated at once: sequences, each with its own `contextLength` of KV cache. */
    parallel: number,
    /** The estimated KV cache of all `parallel` sequences; null when it cannot be estimated (or for an embedding model). */
    kvCacheBytes: number | null,
    /** The KV cache's key and value types, when not f16 (a load-time setting: a change reloads the model). */
    kvCacheTypes?: KvCacheTypes,
    /** LoRA adapters applied to the model at their scales (chatserve.json's `lora`; load-time too). */
    loraAdapters?: ReadonlyArray<{path: string, scale: number}>,
    /**
     * The Jinja chat template chatserve.json names for the model (its text), used instead of the
     * GGUF's; absent: the model's own. A load-time setting like the two above: a change reloads the model.
     */
    chatTemplate?: string,
    /** The vision projector loaded with it: chatserve.json's `mmproj`, else the one paired in its folder. Load-time too. */
    projector?: string,
    /** The projector file's size: what its weights add to the model's memory. */
    projectorBytes?: number,
    /** Why the model's projector is not loaded (its header failed the checks: projectorCheck.ts): it serves text, and image requests hear this. */
    projectorRefusal?: string,
    /** The draft model loaded with it (chatserve.json's `draft`, else --draft-model) and its fixed draft length. Load-time too. */
    draft?: {path: string, tokens?: number},
    /** What the draft takes in memory: its weights and its context, estimated from its header (else its file's size). */
    draftBytes?: number,
    /** chatserve.json's lookup_decoding for the model; absent: the server's flag. Load-time too (its decode loop is made with it). */
    lookupDecoding?: boolean
};

/** Whether a loaded model serves `next` as it is: nothing a load decides (context, sequences, template, projector) differs. */
export function sameLoadSettings(plan: ContextPlan, next: ContextPlan): boolean {
    return plan.contextLength === next.contextLength && plan.parallel === next.parallel &&
        plan.chatTemplate === next.chatTemplate && plan.projector === next.projector &&
        describeKvCacheTypes(plan.kvCacheTypes ?? {k: "f16", v: "f16"}) === describeKvCacheTypes(next.kvCacheTypes ?? {k: "f16", v: "f16"}) &&
        JSON.stringify(plan.loraAdapters ?? []) === JSON.stringify(next.loraAdapters ?? []) &&
        JSON.stringify(plan.draft ?? null) === JSON.stringify(next.draft ?? null) && plan.lookupDecoding === next.lookupDecoding;
}

/** A 20k-token agent prompt and its reply fit; beyond this, a context's KV cache is rarely worth its memory by default. */
export const defaultContextCap = 32768;
/** The old fixed default: a default context never shrinks below this (or the trained context, if smaller) to fit memory. */
export const smallestDefaultContext = 4096;
export const defaultParallelCap = 4;
/** The share of the memory left beside a model's weights that its KV cache may take by default. */
export const memoryShare = 0.5;
/** llama.cpp pads a sequence's cells to a multiple of this; a shrunk context is a multiple of it too. */
const cellPadding = 256;

type PlannedModel = Pick<ModelDescriptor, "trainedContextLength" | "sizeBytes" | "capabilities" | "kvCache">;

export function planContext(model: PlannedModel, settings: ContextSettings): ContextPlan {
    const trained = model.trainedContextLength;
    const cap = (tokens: number) => trained == null ? tokens : Math.min(tokens, trained);
    const generates = model.capabilities.includes("chat");
    const estimate = generates ? model.kvCache : undefined;
    if (!generates)
        // An encoder (embeddings only) has no KV cache, and embeds one request at a time.
        return {contextLength: cap(settings.ctxSize ?? defaultContextCap), parallel: 1, kvCacheBytes: null};

    const budget = settings.freeMemoryBytes == null || estimate == null
        ? Number.POSITIVE_INFINITY
        : Math.max(0, settings.freeMemoryBytes - model.sizeBytes) * memoryShare;
    // The defaults are sized to the chosen types: a q8_0 cache fits about twice the context of an f16 one.
    const types = settings.kvCacheTypes != null && !isDefaultKvCache(settings.kvCacheTypes) ? settings.kvCacheTypes : undefined;
    const fits = (contextSize: number, sequences: number) => estimate == null || estimate(contextSize, sequences, types) <= budget;

    const contextLength = settings.ctxSize != null
        ? cap(settings.ctxSize)
        : largestFittingContext(cap(trained == null ? smallestDefaultContext : defaultContextCap), cap(smallestDefaultContext),
            (contextSize) => fits(contextSize, settings.parallel ?? 1));
    let parallel = settings.parallel;
    if (parallel == null) {
        parallel = 1;
        while (parallel < defaultParallelCap && fits(contextLength, parallel + 1))
            parallel++;
    }
    return {
        contextLength, parallel, kvCacheBytes: estimate == null ? null : estimate(contextLength, parallel, types),
        ...(types == null ? {} : {kvCacheTypes: types})
    };
}

/** `ceiling` if it fits, else the largest multiple of the cell padding that does, but never below `floor`. */
function largestFittingContext(ceiling: number, floor: number, fits: (contextSize: number) => boolean): number {
    if (fits(ceiling))
        return ceiling;
    // The cache grows with the context: search the multiples of the padding between floor and ceiling.
    let low = Math.ceil(floor / cellPadding);
    let high = Math.floor(ceiling / cellPadding);
    if (low >= high || !fits(low * cellPadding))
        return floor;
    while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (fits(middle * cellPadding))
            low = middle;
        else
            high = middle - 1;
    }
    return low * cellPadding;
}
