import type {LoadedModel} from "../engine/types.js";
import type {ModelCapability, ModelObject} from "../protocol/models.js";
import type {ContextPlan} from "./contextPlan.js";
import type {ModelDescriptor} from "./modelDescriptor.js";

/** What the registry knows of a model's load, as /v1/models shows it. */
export type LoadState = {model?: LoadedModel, error?: string} | undefined;

/**
 * A model's `/v1/models` entry: what a request gets (its context, how many run at once) and what
 * the model costs in memory, the same before it loads as after (the plan decided both).
 */
export function modelObject(descriptor: ModelDescriptor, plan: ContextPlan, load: LoadState, aliases: readonly string[]): ModelObject {
    const error = descriptor.error ?? load?.error;
    const loaded = load?.model;
    const status = error != null ? "unavailable"
        : loaded != null ? "loaded"
            : load != null ? "loading"
                : "available";
    const contextMemory = loaded?.contextMemoryBytes;
    return {
        id: descriptor.id,
        object: "model",
        created: descriptor.modifiedAt,
        owned_by: "chatserve",
        context_length: loaded?.contextLength ?? plan.contextLength,
        parallel: plan.parallel,
        kv_cache_bytes: plan.kvCacheBytes,
        ...(contextMemory != null ? {context_memory_bytes: contextMemory} : {}),
        capabilities: loaded == null ? descriptor.capabilities : withInfill(descriptor.capabilities, loaded.supportsInfill),
        status,
        loaded: status === "loaded",
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
        status: "unavailable", loaded: false, architecture: null, size_bytes: 0,
        error: `it is an alias of '${model}', which the models folder does not hold`,
        alias_for: model
    };
}

/** A loaded model knows whether it can fill in the middle (llama.cpp may find the tokens by their text). */
function withInfill(capabilities: ModelCapability[], supportsInfill: boolean): ModelCapability[] {
    const others = capabilities.filter((capability) => capability !== "fim");
    return supportsInfill ? [...others, "fim"] : others;
}
