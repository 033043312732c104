import type {FinishReason, Usage} from "./chatCompletionResponse.js";

/** OpenAI's `text_completion` object; streamed chunks have the same shape. */
export type TextCompletion = {
    id: string,
    object: "text_completion",
    created: number,
    model: string,
    system_fingerprint: string,
    choices: Array<{text: string, index: number, logprobs: null, finish_reason: FinishReason | null}>,
    usage?: Usage | null
};
