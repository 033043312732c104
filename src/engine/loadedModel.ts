import type {ChatHistoryItem} from "node-llama-cpp";
import type {ApiError} from "../errors.js";
import type {GenerationEvent, GenerationResult} from "./generationEvents.js";
import type {CachePartition, GenerationOptions, JsonSchema} from "./generationOptions.js";
import type {ChatPromptOptions, PreparedPrompt} from "./preparedPrompt.js";
import type {LoraAdapter} from "./loraAdapters.js";
import type {LoraScales} from "./loraScales.js";

/**
 * The engine's interface: a loaded model and the sequence a request leases from it. The layers above
 * call only this (llamaLoadedModel.ts is the real one, HTTP tests use a double).
 */

/** What a loaded model is doing, read when metrics are scraped (never on the decode path). */
export type ModelActivity = {
    /** Requests holding a sequence (generating, or evaluating their prompt). */
    running: number,
    /** Requests queued for a free sequence. */
    waiting: number,
    /** The share of the context's KV cells holding tokens (0–1), conversations kept for reuse included. */
    kvCacheUsage: number,
    /** What a drafted token costs, as a share of a plain step, measured by its decode loop (or --draft-token-cost): how long drafts are. */
    draftTokenCost?: number,
    /** What drafting at all costs a step beyond its tokens, as a share of a plain step (0 while unmeasured, or with --draft-token-cost). */
    draftPassCost?: number,
    /** Its sequences (--parallel): with `running` and `waiting`, whether the next request would be refused (GET /health/ready). */
    sequences?: number
};

/** Exclusive use of one sequence of a loaded model, until `release()`. */
export interface SequenceLease {
    generate(prompt: PreparedPrompt, options: GenerationOptions, signal: AbortSignal): AsyncGenerator<GenerationEvent, GenerationResult>,
    release(): void
}

export type EmbeddingResult = {vectors: number[][], promptTokens: number};

/** A reranker's scores, one per document in the documents' order (0–1), and the tokens its pairs took. */
export type RerankResult = {scores: number[], promptTokens: number};

/** A token's text as llama-server's /tokenize shows it: a string, or its bytes where they are not whole UTF-8 (half of an emoji). */
export type TokenPiece = string | number[];

/** /tokenize's switches, as llama-server names them; `param` names the content in errors. */
export type TokenizeRequest = {addSpecial: boolean, parseSpecial: boolean, param: string};

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
     * `promptName`: what the client calls its prompt ("messages", "input"), as errors name it.
     */
    prepareChat(history: ChatHistoryItem[], options: ChatPromptOptions): Promise<PreparedPrompt>,
    /** Why it does not take image input (no projector paired with it, or one that failed to load); null when it does. */
    readonly imageInputRefusal: string | null,
    /** Why the draft model it was planned with is not used (speculation/draftModel.ts); null or absent: used, or none planned. */
    readonly draftRefusal?: string | null,
    /** Builds (and caches) the grammar for a JSON schema (null: any object); throws when llama.cpp cannot parse it. */
    compileSchema(schema: JsonSchema | null): void,
    /** Builds (and caches) a client's GBNF; rejects with engine/grammarDiagnosis.ts's GrammarParseError, llama.cpp's reason, when it cannot parse it. */
    compileGrammar(grammar: string): Promise<void>,
    /** A raw prompt, no template (legacy completions); `promptName` names it in errors. */
    prepareText(prompt: string, promptName: string): Promise<PreparedPrompt>,
    /** Token ids a client sent as its prompt (legacy completions), as they came; `text` is what they spell. */
    prepareTokens(tokens: readonly number[], param: string): Promise<PreparedPrompt & {text: string}>,
    /** A fill-in-the-middle prompt cut to leave `completion.tokens` of the context (`completion.param` names that length in errors); only when `supportsInfill`. */
    prepareInfill(prefix: string, suffix: string, completion: {tokens: number, param: string}): Promise<PreparedPrompt>,
    /** Strings or token-id arrays → one vector each; one request at a time per model, queued like sequences. */
    embed(inputs: ReadonlyArray<string | readonly number[]>, signal: AbortSignal): Promise<EmbeddingResult>,
    /** A reranker's score of each document for the query; one request at a time per model, queued like sequences. */
    rerank(query: string, documents: readonly string[], signal: AbortSignal): Promise<RerankResult>,
    /** Text and token ids → the model's token ids, as llama-server's /tokenize (engine/contentTokens.ts). */
    tokenize(content: ReadonlyArray<string | number>, options: TokenizeRequest): Promise<number[]>,
    /** Each token's text (400 for an id outside the vocabulary, named by `param`). */
    tokenPieces(tokens: readonly number[], param: string): TokenPiece[],
    /** Token ids → text, as llama-server's /detokenize spells them (special tokens shown). */
    detokenize(tokens: readonly number[], param: string): string,
    /** The text a prepared chat prompt evaluates (/apply-template): special tokens shown, images as their marker. */
    promptText(prompt: PreparedPrompt): string,
    /** Its sequences' use now; undefined for a model without sequences (embeddings only). */
    activity?(): ModelActivity | undefined,
    /** Its LoRA adapters (chatserve.json's `lora`; a request's `lora` ids are their indexes), at the scales a request gets by default. */
    readonly loraAdapters?: readonly LoraAdapter[],
    /**
     * Waits for a free sequence (FIFO); throws ServerBusyError when the queue is full. The lease reuses
     * cached prompts of `cachePartition` only (every generation on it is that partition's). `loraScales`:
     * each adapter's scale for this request (loraScales.ts); absent: `loraAdapters`' own. A request
     * under other scales waits for the running ones' sequences to come back (sequencePool.ts).
     */
    acquireSequence(prompt: PreparedPrompt, signal: AbortSignal, cachePartition?: CachePartition, loraScales?: LoraScales): Promise<SequenceLease>,
    /**
     * The model is going (shutdown, or its file changed or left): requests waiting for a sequence,
     * and any that would wait or start preparing a prompt, fail with `reason` at once.
     */
    stopQueueing(reason: ApiError): void,
    /** Stops queueing (as shutdown, unless stopped already), waits for running work, frees the model. */
    dispose(): Promise<void>
}
