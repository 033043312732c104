/**
 * What comes out of a generation: one stream of plain events (text, thought, tool calls, progress,
 * logprobs), then its result (why it ended, token counts). One formatter per API turns them into
 * its reply; none of them sees node-llama-cpp.
 */

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
    /**
     * A tool call begins (its arguments follow as `toolArguments` pieces). `id`: the call's own name
     * where the model's syntax gives it one (Kimi K2's `functions.get_weather:0`), which the APIs
     * hand out as the call's id, as llama-server does: the template reads it back in the tool's result.
     */
    | {type: "toolCall", index: number, name: string, id?: string}
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
    timing?: {firstTokenAt?: number, endedAt: number},
    /** With a prediction: how many of its tokens the reply reproduced, and how many it did not (OpenAI's usage fields). */
    prediction?: {accepted: number, rejected: number},
    /** Drafted tokens sent for verification and those accepted, by where the drafts came from (/metrics). */
    drafts?: Partial<Record<"prediction" | "lookup" | "pool" | "draft", {drafted: number, accepted: number}>>
};
