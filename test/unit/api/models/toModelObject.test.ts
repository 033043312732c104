import {describe, expect, it} from "vitest";
import {toModelObject} from "../../../../src/api/models/toModelObject.js";
import type {ListedModel} from "../../../../src/models/listedModel.js";
import {listedAlias, listedDanglingAlias} from "../../../../src/models/listedModel.js";

const loaded: ListedModel = {
    id: "qwen", modifiedAt: 1_700_000_000, contextLength: 4096, parallel: 2, kvCacheBytes: 1000, contextMemoryBytes: 1500,
    capabilities: ["chat", "completion"], status: "loaded", waitingForMemory: false, unloading: false,
    memory: {ram: 700, vram: 300}, memoryMeasured: true, activeRequests: 1, keepAlive: {ms: 90_500}, expiresAtMs: 1_800_000_000_001,
    architecture: "qwen2", sizeBytes: 500, aliases: ["gpt-4o"]
};

describe("toModelObject", () => {
    it("writes OpenAI's four fields first, then chatserve's in snake case, in the order clients read", () => {
        const entry = toModelObject(loaded);
        expect(Object.keys(entry)).toEqual([
            "id", "object", "created", "owned_by", "context_length", "parallel", "kv_cache_bytes", "context_memory_bytes", "capabilities",
            "status", "loaded", "loading", "waiting_for_memory", "unloading", "memory_bytes", "memory_measured", "memory_gpu_bytes",
            "active_requests", "keep_alive", "expires_at", "architecture", "size_bytes", "aliases"
        ]);
        expect(entry).toMatchObject({
            object: "model", created: 1_700_000_000, owned_by: "chatserve", loaded: true, loading: false,
            memory_bytes: 1000, memory_gpu_bytes: 300, keep_alive: 90.5, expires_at: 1_800_000_001
        });
    });

    it("writes what the prompt cache holds of the model after its size, and nothing for a model whose layout is not known yet", () => {
        const entry = toModelObject({...loaded, promptCache: {ram: {bytes: 4096, entries: 2}, disk: {bytes: 8192, entries: 3}}});
        expect(entry.prompt_cache).toEqual({ram_bytes: 4096, ram_entries: 2, disk_bytes: 8192, disk_entries: 3});
        expect(Object.keys(entry).slice(-3)).toEqual(["size_bytes", "prompt_cache", "aliases"]);
        expect(toModelObject(loaded)).not.toHaveProperty("prompt_cache");
    });

    it("says -1 for a keep-alive for ever, and null for none", () => {
        expect(toModelObject({...loaded, keepAlive: "forever"}).keep_alive).toBe(-1);
        expect(toModelObject({...loaded, keepAlive: null, expiresAtMs: null})).toMatchObject({keep_alive: null, expires_at: null});
    });

    it("writes an alias's entry with alias_for last, and a dangling alias's with its error", () => {
        expect(Object.keys(toModelObject(listedAlias("gpt-4o", loaded))).slice(-3)).toEqual(["architecture", "size_bytes", "alias_for"]);
        expect(toModelObject(listedDanglingAlias("gone", "missing"))).toEqual({
            id: "gone", object: "model", created: 0, owned_by: "chatserve", context_length: null, parallel: 0, kv_cache_bytes: null,
            capabilities: [], status: "unavailable", loaded: false, loading: false, waiting_for_memory: false, unloading: false,
            memory_bytes: 0, memory_measured: false, memory_gpu_bytes: 0, active_requests: 0, keep_alive: null, expires_at: null,
            architecture: null, size_bytes: 0, error: "it is an alias of 'missing', which the models folder does not hold", alias_for: "missing"
        });
    });
});
