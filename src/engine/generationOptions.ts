import type {GbnfJsonSchema} from "node-llama-cpp";

/**
 * What a request asks of a generation, in the engine's own terms (conversation/generationSettings.ts
 * fills them in): sampling, the reply's format, its limits. Plain types, so nothing above the engine
 * touches node-llama-cpp objects (and HTTP tests can drive the server with a double).
 */

export type SamplingOptions = {
    /** 0 is greedy (deterministic). */
    temperature: number,
    topP: number,
    /** Chosen at random when the request names none. */
    seed: number,
    presencePenalty: number,
    frequencyPenalty: number,
    /** From the model's settings (chatserve.json) only; absent: node-llama-cpp's defaults (top-k 40, min-p 0). */
    topK?: number,
    minP?: number,
    /** llama.cpp's multiplicative penalty on recent tokens; absent or 1: off. */
    repeatPenalty?: number,
    /** Added to these tokens' logits before sampling (OpenAI's `logit_bias`; -Infinity bans). */
    logitBias?: ReadonlyMap<number, number>
};

/** A JSON Schema in the subset constrained decoding enforces (see json-schema/constrainedSchema.ts). */
export type JsonSchema = GbnfJsonSchema;

export type ToolDefinition = {name: string, description?: string, parameters: JsonSchema};

/** What shape the reply must take; everything but free text is enforced by constrained decoding. */
export type ReplyFormat =
    | {type: "text"}
    /** A JSON value matching `schema`; null means any JSON object. */
    | {type: "json", schema: JsonSchema | null}
    /** Raw text a client's GBNF accepts (its root rule `root`): llama-server's `grammar`, vLLM's regex and choice written as GBNF. */
    | {type: "grammar", grammar: string}
    | {
        type: "toolCalls",
        tools: readonly ToolDefinition[],
        /**
         * "auto": text or calls, the model decides; "required": at least one call; a name: exactly that call;
         * "none": text only (the tools stay in the prompt, so the conversation's cached prefix stays valid).
         */
        choice: "auto" | "none" | "required" | {name: string},
        /** Whether one reply may hold several calls. */
        parallel: boolean,
        /**
         * With "auto" and `response_format`: a reply that is not calls is a JSON value matching this
         * schema (null: any object), the model choosing at its first token.
         */
        answer?: {schema: JsonSchema | null}
    };

export type GenerationOptions = {
    maxTokens: number,
    /** Client stop sequences; never part of the output (they apply to free text only). */
    stop: readonly string[],
    sampling: SamplingOptions,
    format: ReplyFormat,
    /** Report each sampled token's log probability with `top` alternatives (0–20); with `prompt`, the prompt's tokens' too. */
    logprobs?: {top: number, prompt?: boolean},
    /**
     * The reply the client expects (OpenAI's Predicted Outputs): drafts for the decode loop to verify
     * (engine/speculation/), never a change to what is generated.
     */
    prediction?: string
};

/**
 * Whose cached prompts a request may reuse: a cache (a sequence's KV prefix, a projector's decoded
 * image) filled for one partition is never reused for another, so neither `cached_tokens` nor the
 * time a reply takes tells one partition what another sent. Opaque to the engine; requests with the
 * same partition (undefined included) share their caches. The HTTP layer gives each API key its own
 * when several are configured (http/cachePartition.ts).
 */
export type CachePartition = string;
