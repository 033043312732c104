/** OpenAI's chat-completion reply shapes, exactly as the official SDKs type them. */

export type FinishReason = "stop" | "length";

export type Usage = {
    prompt_tokens: number,
    completion_tokens: number,
    total_tokens: number,
    prompt_tokens_details: {cached_tokens: number}
};

export type ChatCompletion = {
    id: string,
    object: "chat.completion",
    created: number,
    model: string,
    system_fingerprint: string,
    choices: Array<{
        index: number,
        message: {role: "assistant", content: string | null, refusal: null},
        logprobs: null,
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
        delta: {role?: "assistant", content?: string},
        logprobs: null,
        finish_reason: FinishReason | null
    }>,
    /** Present (as null) on every chunk only when `stream_options.include_usage` is set, as OpenAI does. */
    usage?: Usage | null
};
