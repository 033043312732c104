import type {ChatHistoryItem, GbnfJsonSchema, LlamaText, Token} from "node-llama-cpp";
import type {ApiError} from "../errors.js";

/**
 * The engine's vocabulary: plain types the chat layer speaks, so nothing above the engine
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
    logprobs?: {top: number, prompt?: boolean}
};

/** A rendered, tokenized prompt plus the template's own end markers. */
export type PreparedPrompt = {
    tokens: Token[],
    /** Tokens that end the reply besides the model's end-of-generation tokens. */
    stopTokens: Token[],
    /** Text markers that end the reply in templates without an end token ("### Human"). */
    stopStrings: string[],
    /** How this template writes a tool call; set when the prompt was rendered with tools. */
    toolSyntax?: ToolCallSyntax,
    /** How a reasoning model's template marks its thought; set for templates that have one. */
    thought?: ThoughtMarkers,
    /** The client's own token ids: evaluated exactly as sent, never re-spelled in the tokens a cached sequence holds. */
    exactTokens?: boolean,
    /** The images in `tokens`, in order: each stands there as placeholders (one per position it takes). */
    images?: PromptImage[]
};

/** An image file as a request sent it (images/imageInput.ts checks it first); `param` names it in errors. */
export type ImageBytes = {bytes: Uint8Array, id: string, param: string};

/**
 * An image in a prompt's tokens: `positions` placeholder entries from `start`, all one negative value
 * drawn from the image's content, so that a sequence that holds the same image there reuses it and
 * a different one cuts the cache exactly at it (as llama-server compares images by their hash).
 */
export type PromptImage = {
    start: number,
    positions: number,
    /** KV cells (embeddings) it takes: more than `positions` for M-RoPE models. What usage counts. */
    cells: number,
    placeholder: Token,
    /** The projector's native chunk: what encodes and decodes it (engine/vision/nativeVision.ts). */
    chunk: {handle: unknown, index: number, nonCausal: boolean}
};

/** The text around a reasoning model's thought (`<think>` … `</think>`), trimmed. */
export type ThoughtMarkers = {
    open: string,
    close: string,
    /** The prompt ends inside an open thought: the reply begins as thought. */
    opened: boolean
};

/** The text around a tool call, from the chat template (`<tool_call>{"name": "` … `", "arguments": ` … `}</tool_call>`). */
export type ToolCallSyntax = {
    /** Opens a reply's calls, before the first one (Mistral's `[TOOL_CALLS][`); empty for most templates. */
    sectionPrefix: LlamaText,
    /** Closes a reply's calls (Mistral's `]` and end of text); empty for most templates. */
    sectionSuffix: LlamaText,
    /** Opens a call; may contain special tokens. */
    prefix: LlamaText,
    /** Between the name and the JSON arguments. */
    paramsPrefix: string,
    /** Closes a call. */
    suffix: LlamaText,
    /** Between two calls of one reply; null when the template has one call per reply. */
    betweenCalls: LlamaText | null
};

/** A token and its log probability (see engine/tokenLogprobs.ts for which distribution). */
export type TopLogprob = {token: string, bytes: number[], logprob: number};

/** A token of the reply (or prompt) with its likeliest alternatives; `special`: markup that adds nothing to the text (BOS). */
export type TokenLogprob = TopLogprob & {top: TopLogprob[], special: boolean};

export type GenerationEvent =
    | {type: "text", text: string}
    /** A reasoning model's thought, apart from its answer. */
    | {type: "reasoning", text: string}
    /** Prompt processing advanced; lets the HTTP layer keep an idle stream alive. */
    | {type: "progress", evaluatedTokens: number, totalTokens: number}
    /** A tool call begins (its arguments follow as `toolArguments` pieces). */
    | {type: "toolCall", index: number, name: string}
    | {type: "toolArguments", index: number, text: string}
    /** With `logprobs` asked for: a sampled token's, before the events of its text (a stop sequence's tokens have them too). */
    | {type: "logprobs", token: TokenLogprob}
    /** With `logprobs.prompt`: the prompt's tokens, the first (which nothing predicts) with a null logprob. */
    | {type: "promptLogprobs", first: Omit<TokenLogprob, "logprob" | "top">, rest: TokenLogprob[]};

export type FinishReason = "stop" | "length" | "toolCalls" | "abort";

export type GenerationResult = {
    finishReason: FinishReason,
    promptTokens: number,
    /** Prompt tokens whose evaluation was reused from the sequence's cache. */
    cachedTokens: number,
    completionTokens: number,
    /** Of the completion tokens, those of a reasoning model's thought; set when the reply could have one. */
    reasoningTokens?: number,
    /** The client stop sequence that ended the reply (Anthropic's `stop_sequence` names it). */
    stopSequence?: string,
    /**
     * When the reply's first token was sampled and when the reply ended (`performance.now()`), for
     * the metrics' time to first token and time per output token; no first token: none sampled.
     */
    timing?: {firstTokenAt?: number, endedAt: number}
};

/** What a loaded model is doing, read when metrics are scraped (never on the decode path). */
export type ModelActivity = {
    /** Requests holding a sequence (generating, or evaluating their prompt). */
    running: number,
    /** Requests queued for a free sequence. */
    waiting: number,
    /** The share of the context's KV cells holding tokens (0–1), conversations kept for reuse included. */
    kvCacheUsage: number
};

/** Exclusive use of one sequence of a loaded model, until `release()`. */
export interface SequenceLease {
    generate(prompt: PreparedPrompt, options: GenerationOptions, signal: AbortSignal): AsyncGenerator<GenerationEvent, GenerationResult>,
    release(): void
}

export type ChatPromptOptions = {tools?: readonly ToolDefinition[], thinking?: boolean, images?: readonly ImageBytes[], promptName?: string};

export type EmbeddingResult = {vectors: number[][], promptTokens: number};

export interface LoadedModel {
    /** Tokens one request can use, prompt and completion together. */
    readonly contextLength: number,
    /** What llama.cpp allocated for the generation context (KV cache and compute buffers), in bytes, as it reports it. */
    readonly contextMemoryBytes?: number,
    /**
     * What llama.cpp allocated for the whole model, as it reports it once loaded: the weights and every
     * context (KV cache, compute and output buffers), in RAM and in GPU memory.
     */
    readonly memory?: {ram: number, vram: number},
    /** Whether the GGUF has fill-in-the-middle tokens. */
    readonly supportsInfill: boolean,
    /** How many tokens the model knows (`logit_bias` ids are checked against it); absent: not checked. */
    readonly vocabularySize?: number,
    /** Length of the model's embedding vectors. */
    readonly embeddingDimensions: number,
    /** Whether the chat template renders tools (and so the model can be asked to call them). */
    readonly supportsTools: boolean,
    /**
     * Renders the conversation; with `tools`, the template documents them and the prompt says how calls look.
     * With `thinking` false (default true), a reasoning model's reply begins after an empty thought.
     * `promptName`: what the client calls its prompt ("messages", the default; "input"), as errors name it.
     */
    prepareChat(history: ChatHistoryItem[], options?: ChatPromptOptions): Promise<PreparedPrompt>,
    /** Why it does not take image input (no projector paired with it, or one that failed to load); null when it does. */
    readonly imageInputRefusal: string | null,
    /** Builds (and caches) the grammar for a JSON schema (null: any object); throws when llama.cpp cannot parse it. */
    compileSchema(schema: JsonSchema | null): void,
    /** A raw prompt, no template (legacy completions). */
    prepareText(prompt: string): Promise<PreparedPrompt>,
    /** Token ids a client sent as its prompt (legacy completions), as they came; `text` is what they spell. */
    prepareTokens(tokens: readonly number[], param: string): Promise<PreparedPrompt & {text: string}>,
    /** A fill-in-the-middle prompt cut to leave `completion.tokens` of the context (`completion.param` names that length in errors); only when `supportsInfill`. */
    prepareInfill(prefix: string, suffix: string, completion: {tokens: number, param: string}): Promise<PreparedPrompt>,
    /** Strings or token-id arrays → one vector each; one request at a time per model, queued like sequences. */
    embed(inputs: ReadonlyArray<string | readonly number[]>, signal: AbortSignal): Promise<EmbeddingResult>,
    /** Its sequences' use now; undefined for a model without sequences (embeddings only). */
    activity?(): ModelActivity | undefined,
    /** Waits for a free sequence (FIFO); throws ServerBusyError when the queue is full. */
    acquireSequence(prompt: PreparedPrompt, signal: AbortSignal): Promise<SequenceLease>,
    /**
     * The model is going (shutdown, or its file changed or left): requests waiting for a sequence,
     * and any that would wait or start preparing a prompt, fail with `reason` at once.
     */
    stopQueueing(reason: ApiError): void,
    /** Stops queueing (as shutdown, unless stopped already), waits for running work, frees the model. */
    dispose(): Promise<void>
}
