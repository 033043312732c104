import type {ChatHistoryItem, Token} from "node-llama-cpp";

/**
 * The engine's vocabulary: plain types the chat layer speaks, so nothing above the engine
 * touches node-llama-cpp objects (and HTTP tests can drive the server with a double).
 */

export type SamplingOptions = {
    /** 0 is greedy (deterministic). */
    temperature: number,
    topP: number,
    seed?: number,
    presencePenalty: number,
    frequencyPenalty: number
};

export type GenerationOptions = {
    maxTokens: number,
    /** Client stop sequences; never part of the output. */
    stop: readonly string[],
    sampling: SamplingOptions
};

/** A rendered, tokenized prompt plus the template's own end markers. */
export type PreparedPrompt = {
    tokens: Token[],
    /** Tokens that end the reply besides the model's end-of-generation tokens. */
    stopTokens: Token[],
    /** Text markers that end the reply in templates without an end token ("### Human"). */
    stopStrings: string[]
};

export type GenerationEvent =
    | {type: "text", text: string}
    /** Prompt processing advanced; lets the HTTP layer keep an idle stream alive. */
    | {type: "progress", evaluatedTokens: number, totalTokens: number};

export type FinishReason = "stop" | "length" | "abort";

export type GenerationResult = {
    finishReason: FinishReason,
    promptTokens: number,
    /** Prompt tokens whose evaluation was reused from the sequence's cache. */
    cachedTokens: number,
    completionTokens: number
};

/** Exclusive use of one sequence of a loaded model, until `release()`. */
export interface SequenceLease {
    generate(prompt: PreparedPrompt, options: GenerationOptions, signal: AbortSignal): AsyncGenerator<GenerationEvent, GenerationResult>,
    release(): void
}

export type EmbeddingResult = {vectors: number[][], promptTokens: number};

export interface LoadedModel {
    /** Tokens one request can use, prompt and completion together. */
    readonly contextLength: number,
    /** Whether the GGUF has fill-in-the-middle tokens. */
    readonly supportsInfill: boolean,
    /** Length of the model's embedding vectors. */
    readonly embeddingDimensions: number,
    prepareChat(history: ChatHistoryItem[]): PreparedPrompt,
    /** A raw prompt, no template (legacy completions). */
    prepareText(prompt: string): PreparedPrompt,
    /** A fill-in-the-middle prompt; only when `supportsInfill`. */
    prepareInfill(prefix: string, suffix: string): PreparedPrompt,
    /** Strings or token-id arrays → one vector each. */
    embed(inputs: ReadonlyArray<string | readonly number[]>): Promise<EmbeddingResult>,
    /** Waits for a free sequence (FIFO); throws ServerBusyError when the queue is full. */
    acquireSequence(prompt: PreparedPrompt, signal: AbortSignal): Promise<SequenceLease>,
    dispose(): Promise<void>
}
