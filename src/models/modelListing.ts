import {keepAliveSeconds, type KeepAlive} from "../api/keepAlive.js";
import type {ModelCapability, ModelObject} from "../api/models/models.js";
import type {ContextPlan} from "./contextPlan.js";
import {totalBytes, type MemoryFootprint} from "./memoryEstimate.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import type {Residency} from "./residency.js";

/** What the registry knows of a model's stay in memory, as /v1/models shows it. */
export type ResidencyView = {
    /** Its residency, if a request has asked for it (waiting for room, loading, loaded, failed, being unloaded). */
    residency?: Residency,
    /** What it takes in memory: estimated before its first load, as llama.cpp counted it after. */
    estimate: MemoryFootprint,
    /** Whether `estimate` is what llama.cpp counted when it last loaded. */
    measured: boolean,
    /** Why it can never load under the memory budget, if it cannot. */
    tooLarge?: string,
    /** --keep-alive: what a model no request has named one for gets. */
    keepAlive: KeepAlive | null
};

/**
 * A model's `/v1/models` entry: what a request gets (its context, how many run at once), what the
 * model costs in memory (the same plan decided both, before it loads), and where it stands:
 * loading, loaded, busy, until when it stays.
 */
export function modelObject(descriptor: ModelDescriptor, plan: ContextPlan, view: ResidencyView, aliases: readonly string[]): ModelObject {
    const {residency} = view;
    const error = descriptor.error ?? residency?.error ?? view.tooLarge;
    const loaded = residency?.state === "loaded" ? residency.facts : undefined;
    const status = error != null ? "unavailable"
        : loaded != null ? "loaded"
            : residency != null ? "loading"
                : "available";
    const contextMemory = loaded?.contextMemoryBytes;
    const memory = loaded != null ? residency!.memory : view.estimate;
    // A residency's keep-alive is its last request's (each request sets it, to its own or to --keep-alive).
    const keepAlive = residency != null ? residency.keepAlive : view.keepAlive;
    return {
        id: descriptor.id,
        object: "model",
        created: descriptor.modifiedAt,
        owned_by: "chatserve",
        context_length: loaded?.contextLength ?? plan.contextLength,
        parallel: plan.parallel,
        kv_cache_bytes: plan.kvCacheBytes,
        ...(contextMemory != null ? {context_memory_bytes: contextMemory} : {}),
        capabilities: withVision(loaded == null ? descriptor.capabilities : withInfill(descriptor.capabilities, loaded.supportsInfill), plan),
        status,
        loaded: status === "loaded",
        loading: status === "loading",
        waiting_for_memory: status === "loading" && residency!.state === "waiting",
        unloading: loaded != null && residency!.unloading,
        memory_bytes: totalBytes(memory),
        memory_measured: loaded != null ? residency!.measured : view.measured,
        memory_gpu_bytes: memory.vram,
        active_requests: residency?.holds ?? 0,
        keep_alive: keepAlive == null ? null : keepAliveSeconds(keepAlive),
        expires_at: residency?.expiresAtMs == null ? null : Math.ceil(residency.expiresAtMs / 1000),
        architecture: descriptor.architecture,
        size_bytes: descriptor.sizeBytes,
        ...(error != null ? {error} : {}),
        ...(aliases.length > 0 ? {aliases: [...aliases]} : {})
    };
}

/**
 * An alias's entry: a model of its own in the list, so that model pickers (which show `id` and
 * nothing else) offer the name an agent insists on, with the served model's fields and `alias_for`.
 */
export function aliasObject(name: string, target: ModelObject): ModelObject {
    const {aliases: _aliases, ...fields} = target;
    return {...fields, id: name, alias_for: target.id};
}

/** An alias whose model the folder does not hold (yet): listed, so that the mistake shows. */
export function danglingAliasObject(name: string, model: string): ModelObject {
    return {
        id: name, object: "model", created: 0, owned_by: "chatserve",
        context_length: null, parallel: 0, kv_cache_bytes: null, capabilities: [],
        status: "unavailable", loaded: false, loading: false, waiting_for_memory: false, unloading: false,
        memory_bytes: 0, memory_measured: false, memory_gpu_bytes: 0, active_requests: 0, keep_alive: null, expires_at: null,
        architecture: null, size_bytes: 0,
        error: `it is an alias of '${model}', which the models folder does not hold`,
        alias_for: model
    };
}

/** A loaded model knows whether it can fill in the middle (llama.cpp may find the tokens by their text). */
function withInfill(capabilities: ModelCapability[], supportsInfill: boolean): ModelCapability[] {
    const others = capabilities.filter((capability) => capability !== "fim");
    return supportsInfill ? [...others, "fim"] : others;
}

/** A model served with a projector takes images (a projector that then fails to load is a 400 with its reason). */
function withVision(capabilities: ModelCapability[], plan: ContextPlan): ModelCapability[] {
    return plan.projector != null && capabilities.includes("chat") ? [...capabilities, "vision"] : capabilities;
}
