import {defaultKvCacheTypes, type KvCacheTypes} from "../engine/kvCacheTypes.js";
import type {PromptCacheUsage} from "../engine/promptCache/promptCacheStats.js";
import type {ContextPlan} from "./contextPlan.js";
import type {KeepAlive} from "./keepAlive.js";
import {noMemory, type MemoryFootprint} from "./memoryEstimate.js";
import type {ModelCapability, ModelDescriptor} from "./modelDescriptor.js";
import type {Residency} from "./residency.js";

/** "available": on disk, loads on its first request; "loading" (or waiting for room to); "loaded"; "unavailable" (see `error`). */
export type ModelAvailability = "available" | "loading" | "loaded" | "unavailable";

/**
 * One model as a listing shows it, in no wire format's terms (api/models/toModelObject.ts writes
 * OpenAI's /v1/models entry from it; the start-up banner reads it): what a request gets (its
 * context, how many run at once), what the model costs in memory (the same plan decided both,
 * before it loads), and where it stands: loading, loaded, busy, until when it stays.
 */
export type ListedModel = {
    /** The model's id, or on an alias's entry the alias. */
    id: string,
    /** Unix seconds: the newest modification time among its files (0 when the folder does not hold it). */
    modifiedAt: number,
    /** Tokens a request gets, prompt and reply together (once loaded, what llama.cpp gave); null when unknown. */
    contextLength: number | null,
    parallel: number,
    kvCacheBytes: number | null,
    /** What its KV cache stores keys and values as (a model that generates; absent for an embedding model, which has none). */
    kvCacheTypes?: KvCacheTypes,
    /** The LoRA adapters it is served with, in chatserve.json's order (llama-server's ids are their indexes). */
    loraAdapters?: ReadonlyArray<{path: string, scale: number}>,
    /** Once loaded: what llama.cpp allocated for the context. */
    contextMemoryBytes?: number,
    capabilities: ModelCapability[],
    status: ModelAvailability,
    /** Of "loading": it waits for room in the memory budget, holding none yet. */
    waitingForMemory: boolean,
    /** Loaded, and chosen to go once its requests end. */
    unloading: boolean,
    /** What it takes: the estimate until it has loaded, llama.cpp's account after. */
    memory: MemoryFootprint,
    /** Whether `memory` is llama.cpp's account rather than the estimate. */
    memoryMeasured: boolean,
    /** Requests holding it: running, queued for a sequence, or waiting for it to load. */
    activeRequests: number,
    /** How long it stays once idle: its last request's, else the model's or --keep-alive; null: until its memory is needed. */
    keepAlive: KeepAlive | null,
    /** When its keep-alive will unload it (ms since the epoch); null when no timer runs. */
    expiresAtMs: number | null,
    architecture: string | null,
    /** How the weights are quantized ("Q4_K_M"), from the header; absent when it does not say (Ollama's /api/tags shows it). */
    quantization?: string,
    sizeBytes: number,
    /** What the prompt cache holds of its prompts, per tier; absent until it has loaded with a cache (its layout is known then). */
    promptCache?: PromptCacheUsage,
    /** Why it cannot be used, when unavailable. */
    error?: string,
    /** Why a model planned with a projector takes no images: it failed its checks, or llama.cpp could not load it. It serves text. */
    visionError?: string,
    /** The draft model it is served with (chatserve.json's `draft`, --draft-model) and its fixed draft length; `error`: why it is not used, once it has loaded. */
    draft?: {path: string, tokens?: number, error?: string},
    /** On an alias's entry: the model it serves. */
    aliasFor?: string,
    /** On a model's entry: the aliases and patterns that lead to it. */
    aliases?: string[]
};

/** What the scheduler knows of a model's stay in memory, beside its plan. */
export type ResidencyView = {
    /** Its residency, if a request has asked for it (waiting for room, loading, loaded, failed, being unloaded). */
    residency?: Residency,
    /** What it takes in memory: estimated before its first load, as llama.cpp counted it after. */
    estimate: MemoryFootprint,
    /** Whether `estimate` is what llama.cpp counted when it last loaded. */
    measured: boolean,
    /** Why it can never load under the memory budget, if it cannot. */
    tooLarge?: string,
    /** The model's chatserve.json keep_alive, else --keep-alive: what it gets when no request has named one. */
    keepAlive: KeepAlive | null
};

export function listedModel(descriptor: ModelDescriptor, plan: ContextPlan, view: ResidencyView, aliases: readonly string[], promptCache?: PromptCacheUsage): ListedModel {
    const {residency} = view;
    const error = descriptor.error ?? residency?.error ?? view.tooLarge;
    const loaded = residency?.state === "loaded" ? residency.facts : undefined;
    const status = error != null ? "unavailable"
        : loaded != null ? "loaded"
            : residency != null ? "loading"
                : "available";
    const contextMemory = loaded?.contextMemoryBytes;
    // Planned with a projector, it only knows whether the projector loaded once it has.
    const visionError = plan.projectorRefusal ?? (plan.projector != null ? loaded?.imageInputRefusal ?? undefined : undefined);
    return {
        id: descriptor.id,
        modifiedAt: descriptor.modifiedAt,
        contextLength: loaded?.contextLength ?? plan.contextLength,
        parallel: plan.parallel,
        kvCacheBytes: plan.kvCacheBytes,
        ...(descriptor.capabilities.includes("chat") ? {kvCacheTypes: plan.kvCacheTypes ?? defaultKvCacheTypes} : {}),
        ...(plan.loraAdapters == null ? {} : {loraAdapters: plan.loraAdapters}),
        ...(contextMemory != null ? {contextMemoryBytes: contextMemory} : {}),
        capabilities: withVision(loaded == null ? descriptor.capabilities : withInfill(descriptor.capabilities, loaded.supportsInfill), plan, visionError),
        status,
        waitingForMemory: status === "loading" && residency!.state === "waiting",
        unloading: loaded != null && residency!.unloading,
        memory: loaded != null ? residency!.memory : view.estimate,
        memoryMeasured: loaded != null ? residency!.measured : view.measured,
        activeRequests: residency?.holds ?? 0,
        // A residency's keep-alive is its last request's (each request sets it, to its own or to the default).
        keepAlive: residency != null ? residency.keepAlive : view.keepAlive,
        expiresAtMs: residency?.expiresAtMs ?? null,
        architecture: descriptor.architecture,
        ...(descriptor.quantization != null ? {quantization: descriptor.quantization} : {}),
        sizeBytes: descriptor.sizeBytes,
        ...(promptCache != null ? {promptCache} : {}),
        ...(error != null ? {error} : {}),
        ...(visionError != null ? {visionError} : {}),
        ...(plan.draft == null ? {} : {draft: {...plan.draft, ...(loaded?.draftRefusal == null ? {} : {error: loaded.draftRefusal})}}),
        ...(aliases.length > 0 ? {aliases: [...aliases]} : {})
    };
}

/**
 * An alias's entry: a model of its own in the list, so that model pickers (which show the id and
 * nothing else) offer the name an agent insists on, with the served model's fields and `aliasFor`.
 */
export function listedAlias(name: string, target: ListedModel): ListedModel {
    const {aliases: _aliases, ...fields} = target;
    return {...fields, id: name, aliasFor: target.id};
}

/** An alias whose model the folder does not hold (yet): listed, so that the mistake shows. */
export function listedDanglingAlias(name: string, model: string): ListedModel {
    return {
        id: name, modifiedAt: 0, contextLength: null, parallel: 0, kvCacheBytes: null, capabilities: [],
        status: "unavailable", waitingForMemory: false, unloading: false,
        memory: noMemory, memoryMeasured: false, activeRequests: 0, keepAlive: null, expiresAtMs: null,
        architecture: null, sizeBytes: 0,
        error: `it is an alias of '${model}', which the models folder does not hold`,
        aliasFor: model
    };
}

/** A loaded model knows whether it can fill in the middle (llama.cpp may find the tokens by their text). */
function withInfill(capabilities: ModelCapability[], supportsInfill: boolean): ModelCapability[] {
    const others = capabilities.filter((capability) => capability !== "fim");
    return supportsInfill ? [...others, "fim"] : others;
}

/** A model served with a projector takes images, unless the projector failed (`visionError`: a 400 with that reason). */
function withVision(capabilities: ModelCapability[], plan: ContextPlan, visionError: string | undefined): ModelCapability[] {
    return plan.projector != null && visionError == null && capabilities.includes("chat") ? [...capabilities, "vision"] : capabilities;
}
