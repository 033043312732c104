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
    capabilities: ModelCapability[],
    /** "available": on disk, loads on first request; "loading"; "loaded"; "unavailable" (see `error`). */
    status: "available" | "loading" | "loaded" | "unavailable",
    loaded: boolean,
    architecture: string | null,
    size_bytes: number,
    /** Why the model cannot be used, when status is "unavailable". */
    error?: string
};

export type ModelList = {object: "list", data: ModelObject[]};
