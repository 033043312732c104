/**
 * `GET /v1/models` entries: OpenAI's four fields, then chatserve's extensions in one block,
 * so clients need not guess the context window or what a model can do.
 */
export type ModelCapability = "chat" | "completion" | "tools" | "embeddings" | "fim";

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
    /** Once loaded: what llama.cpp allocated for the context (KV cache and compute buffers), in bytes. */
    context_memory_bytes?: number,
    capabilities: ModelCapability[],
    /** "available": on disk, loads on first request; "loading"; "loaded"; "unavailable" (see `error`). */
    status: "available" | "loading" | "loaded" | "unavailable",
    loaded: boolean,
    architecture: string | null,
    size_bytes: number,
    /** Why the model cannot be used, when status is "unavailable". */
    error?: string,
    /** On an alias's entry: the model it serves (the entry's other fields are that model's). */
    alias_for?: string,
    /** On a model's entry: the aliases and `*` patterns (--model-alias) that serve it. */
    aliases?: string[]
};

export type ModelList = {object: "list", data: ModelObject[]};
