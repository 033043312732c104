import type {PromptCacheUsage} from "../engine/promptCache/promptCacheStats.js";
import type {LoadedModel} from "../engine/loadedModel.js";
import type {KeepAlive} from "./keepAlive.js";
import type {ContextPlan, ContextSettings} from "./contextPlan.js";
import type {ModelAliases} from "./modelAliases.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import type {SamplingDefaults} from "./modelSettings.js";

/** What the model registry (modelRegistry.ts) is built with, and what it hands out. */

/** Loads a model with the context the plan decided (the same plan /v1/models reports). */
export type ModelLoader = (descriptor: ModelDescriptor, plan: ContextPlan) => Promise<LoadedModel>;

export type MemorySettings = {
    /** --memory-limit (or the memory free at start, less a margin): what the models may take together. Default: no limit. */
    bytes?: number,
    /** Where `bytes` came from, for messages. */
    source?: string,
    /** --max-loaded-models; default: no count limit. */
    models?: number,
    /** --keep-alive; null or absent: a model stays until its memory is needed. */
    keepAlive?: KeepAlive | null,
    /** How long a request waits for room (for busy models to end their requests) before its 503; default 120 s. */
    waitMs?: number,
    /** Requests that may wait for a model to get room and load (--max-queue); more get 503 server_busy. Default: no limit. */
    maxWaiting?: number
};

export type RegistrySettings = {
    /** --ctx-size, --parallel and the memory the defaults are sized to. */
    context: ContextSettings,
    /** --model-alias: other names for the models. */
    aliases?: ModelAliases,
    /** The memory budget, the model count limit and keep-alive. */
    memory?: MemorySettings,
    /** Told of every load and unload, with how long it took (metrics). */
    lifecycle?: ModelLifecycleObserver,
    /** What the prompt cache holds for the model loaded from a path (its listing's `promptCache`); none without a cache. */
    promptCacheUsage?: (modelPath: string) => PromptCacheUsage | undefined
};

/** Hears of each model's loads and unloads as they end. */
export type ModelLifecycleObserver = {
    loaded(id: string, seconds: number): void,
    loadFailed(id: string, seconds: number): void,
    /** Its memory is free (`seconds`: how long disposing its weights and contexts took). */
    unloaded(id: string, seconds: number): void
};

/**
 * A loaded model held for one request: it is never unloaded before `release()` (call it once the
 * request is done). `sampling`: the model's defaults from chatserve.json, under the request's own fields.
 */
export type HeldModel = {model: LoadedModel, release(): void, sampling?: SamplingDefaults};

export type HoldOptions = {
    /** The request's keep_alive; null or absent: --keep-alive. */
    keepAlive?: KeepAlive | null,
    /** The request's: a client that leaves while it waits for room stops waiting (and no longer asks for room). */
    signal?: AbortSignal
};
