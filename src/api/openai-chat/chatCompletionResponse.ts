import type {FinishReason, Usage} from "../openai-shared/replyFields.js";

/** OpenAI's chat-completion reply shapes, exactly as the official SDKs type them. */

export type {FinishReason, Usage};

/** Arguments are always a JSON *string*: typed clients (Python's openai) crash on an object. */
export type ToolCall = {id: string, type: "function", function: {name: string, arguments: string}};

/** A streamed piece of a call: the first carries id, type, name and `arguments: ""`; later ones only argument text. */
export type ToolCallDelta =
    | ToolCall & {index: number}
    | {index: number, function: {arguments: string}};


/** A token's log probability, OpenAI's `ChatCompletionTokenLogprob` (fields in its order). */
export type ChatTokenLogprob = {
    token: string,
    logprob: number,
    bytes: number[] | null,
    top_logprobs: Array<{token: string, logprob: number, bytes: number[] | null}>
};

/** A choice's `logprobs`: null unless the request set `logprobs: true`. */
export type ChoiceLogprobs = {content: ChatTokenLogprob[] | null, refusal: null} | null;

export type ChatCompletion = {
    id: string,
    object: "chat.completion",
    created: number,
    model: string,
    system_fingerprint: string,
    choices: Array<{
        index: number,
        message: {role: "assistant", content: string | null, reasoning_content?: string, refusal: null, tool_calls?: ToolCall[]},
        logprobs: ChoiceLogprobs,
        finish_reason: FinishReason
    }>,
    usage: Usage
};

export type ChatCompletionChunk = {
    id: string,
    object: "chat.completion.chunk",
    created: number,
    model: string,
    system_fingerprint: string,
    choices: Array<{
        index: number,
        delta: {role?: "assistant", content?: string | null, reasoning_content?: string, tool_calls?: ToolCallDelta[]},
        logprobs: ChoiceLogprobs,
        finish_reason: FinishReason | null
    }>,
    /** Present (as null) on every chunk only when `stream_options.include_usage` is set, as OpenAI does. */
    usage?: Usage | null
};
