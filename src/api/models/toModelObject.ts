import {totalBytes} from "../../models/memoryEstimate.js";
import type {ListedModel} from "../../models/listedModel.js";
import {keepAliveSeconds} from "../keepAlive.js";
import type {ModelObject} from "./models.js";

/**
 * A listed model (models/listedModel.ts) → its `/v1/models` entry: OpenAI's four fields, then
 * chatserve's in snake case, sizes in bytes, times in Unix seconds. The order of the fields is
 * the order clients have always read: optional ones appear only when they say something.
 */
export function toModelObject(model: ListedModel): ModelObject {
    return {
        id: model.id,
        object: "model",
        created: model.modifiedAt,
        owned_by: "chatserve",
        context_length: model.contextLength,
        parallel: model.parallel,
        kv_cache_bytes: model.kvCacheBytes,
        ...(model.kvCacheTypes != null ? {cache_type_k: model.kvCacheTypes.k, cache_type_v: model.kvCacheTypes.v} : {}),
        ...(model.loraAdapters != null ? {lora_adapters: model.loraAdapters.map(({path, scale}, id) => ({id, path, scale}))} : {}),
        ...(model.contextMemoryBytes != null ? {context_memory_bytes: model.contextMemoryBytes} : {}),
        capabilities: [...model.capabilities],
        status: model.status,
        loaded: model.status === "loaded",
        loading: model.status === "loading",
        waiting_for_memory: model.waitingForMemory,
        unloading: model.unloading,
        memory_bytes: totalBytes(model.memory),
        memory_measured: model.memoryMeasured,
        memory_gpu_bytes: model.memory.vram,
        active_requests: model.activeRequests,
        keep_alive: model.keepAlive == null ? null : keepAliveSeconds(model.keepAlive),
        // Rounded up: a client that waits until then finds it gone.
        expires_at: model.expiresAtMs == null ? null : Math.ceil(model.expiresAtMs / 1000),
        architecture: model.architecture,
        size_bytes: model.sizeBytes,
        ...(model.promptCache != null ? {prompt_cache: {
            ram_bytes: model.promptCache.ram.bytes, ram_entries: model.promptCache.ram.entries,
            disk_bytes: model.promptCache.disk.bytes, disk_entries: model.promptCache.disk.entries
        }} : {}),
        ...(model.error != null ? {error: model.error} : {}),
        ...(model.draft != null ? {draft: {
            path: model.draft.path, ...(model.draft.tokens == null ? {} : {draft_tokens: model.draft.tokens}), ...(model.draft.error == null ? {} : {error: model.draft.error})
        }} : {}),
        ...(model.visionError != null ? {vision_error: model.visionError} : {}),
        ...(model.aliasFor != null ? {alias_for: model.aliasFor} : {}),
        ...(model.aliases != null && model.aliases.length > 0 ? {aliases: [...model.aliases]} : {})
    };
}
