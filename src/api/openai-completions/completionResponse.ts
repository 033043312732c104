import type {FinishReason, Usage} from "../openai-chat/chatCompletionResponse.js";

/** Legacy completions' `logprobs`: one entry per token in each list; `top_logprobs` maps a token to its logprob (null for a prompt's first token). */
export type CompletionLogprobs = {
    tokens: string[],
    token_logprobs: Array<number | null>,
    top_logprobs: Array<Record<string, number> | null>,
    text_offset: number[]
};

/** OpenAI's `text_completion` object; streamed chunks have the same shape. */
export type TextCompletion = {
    id: string,
    object: "text_completion",
    created: number,
    model: string,
    system_fingerprint: string,
    choices: Array<{text: string, index: number, logprobs: CompletionLogprobs | null, finish_reason: FinishReason | null}>,
    usage?: Usage | null
};
