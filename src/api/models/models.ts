import type {ModelCapability} from "../../models/modelDescriptor.js";

/**
 * `GET /v1/models` entries: OpenAI's four fields, then chatserve's extensions in one block,
 * so clients need not guess the context window or what a model can do. Written from the models'
 * own description of each (toModelObject.ts).
 */
export type ModelObject = {
    id: string,
    object: "model",
    created: number,
    owned_by: string,

    // --- chatserve extensions ---
    /** The context window a single request gets, in tokens (prompt + completion). */
    context_length: number | null,
    /** Requests generated at once (the model's sequences), each with the whole `context_length`; more wait in a queue. */
    parallel: number,
    /**
     * The KV cache of all `parallel` sequences, in bytes, as estimated from the GGUF header before
     * the model loads; null when it cannot be estimated, or for an embedding model (which has none).
     */
    kv_cache_bytes: number | null,
    /** What the KV cache stores keys and values as (llama-server's names: f16, q8_0…); only for a model that generates. */
    cache_type_k?: string,
    cache_type_v?: string,
    /** LoRA adapters applied to it (chatserve.json's `lora`), as llama-server's GET /lora-adapters lists them. */
    lora_adapters?: Array<{id: number, path: string, scale: number}>,
    /** Once loaded: what llama.cpp allocated for the context (KV cache and compute buffers), in bytes. */
    context_memory_bytes?: number,
    capabilities: ModelCapability[],
    /** "available": on disk, loads on first request; "loading"; "loaded"; "unavailable" (see `error`). */
    status: "available" | "loading" | "loaded" | "unavailable",
    /** Its weights and context are in memory, ready to serve (also while `unloading`, until they are freed). */
    loaded: boolean,
    /** A load is under way: waiting for room in the memory budget (other models to go idle and be unloaded), or reading the weights. */
    loading: boolean,
    /** Of `loading`: its load waits for room in the memory budget (it holds no memory yet; see `active_requests` of the others). */
    waiting_for_memory: boolean,
    /**
     * It is being unloaded: its memory is being freed, or it will be as soon as its running and queued
     * requests end (to make room for another model, or asked by `POST /v1/models/{id}/unload`).
     * Requests that come meanwhile wait for it to go, then load it again.
     */
    unloading: boolean,
    /**
     * What the model takes in memory, in bytes: its weights, the KV cache of its `parallel`
     * sequences of `context_length` tokens, and its compute and output buffers. Until it has first
     * loaded, node-llama-cpp's estimate from the GGUF header (what decides whether it fits the memory
     * budget); once loaded, what llama.cpp reports it allocated (`memory_measured` true), which the
     * next load of the same file is then expected to take too.
     */
    memory_bytes: number,
    /** Whether `memory_bytes` is llama.cpp's account from the model's last load (true) or the estimate made before any (false). */
    memory_measured: boolean,
    /** Of `memory_bytes`, the part in GPU memory (VRAM); 0 on the CPU backend. `memory_bytes - memory_gpu_bytes` is in RAM. */
    memory_gpu_bytes: number,
    /** Requests holding the model: running, queued for a sequence, or waiting for it to load. A model with any is never unloaded. */
    active_requests: number,
    /**
     * How long the model stays loaded once idle, in seconds (the last request's `keep_alive`, else
     * `--keep-alive`): 0 unloads it after each request; -1 never unloads it (not even to make room for
     * another model); null (the default) keeps it until its memory is needed for another model.
     */
    keep_alive: number | null,
    /**
     * Unix seconds at which the idle, loaded model will be unloaded by its keep-alive; null when no
     * such time is set (not loaded, busy, or a keep-alive of null or -1).
     */
    expires_at: number | null,
    architecture: string | null,
    size_bytes: number,
    /**
     * What the prompt cache (docs/prompt-cache.md) holds of this model's prompts: bytes and entries
     * in RAM and on disk, under the settings it last loaded with. Absent until the model has loaded
     * with a prompt cache since the server started (the entries' layout is known only then).
     */
    prompt_cache?: {ram_bytes: number, ram_entries: number, disk_bytes: number, disk_entries: number},
    /** Why the model cannot be used, when status is "unavailable". */
    error?: string,
    /** Why a model served with a projector takes no images (its projector failed its checks or its load): it serves text. */
    vision_error?: string,
    /**
     * The draft model it is served with for speculative decoding (chatserve.json's `draft`, --draft-model):
     * its file, its fixed draft length if chatserve.json gives one (`draft_tokens`), and once the model
     * has loaded, why the draft is not used if it is not (a tokenizer unlike the model's).
     */
    draft?: {path: string, draft_tokens?: number, error?: string},
    /** On an alias's entry: the model it serves (the entry's other fields are that model's). */
    alias_for?: string,
    /** On a model's entry: the aliases and `*` patterns (--model-alias) that serve it. */
    aliases?: string[]
};

export type ModelList = {object: "list", data: ModelObject[]};
