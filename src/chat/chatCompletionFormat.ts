import {randomBytes} from "node:crypto";
import type {GenerationResult} from "../engine/types.js";
import type {ChatCompletion, ChatCompletionChunk, FinishReason, ToolCall, Usage} from "../protocol/chatCompletionResponse.js";

/** The identity shared by a reply and all its chunks (OpenAI stamps one `id` and one `created` on every chunk). */
export type ReplyIdentity = {id: string, created: number, model: string};

/** Identifies the build that produced a reply, as OpenAI's `system_fingerprint` does. */
export const systemFingerprint = "chatserve";

export function newReplyIdentity(model: string, prefix = "chatcmpl"): ReplyIdentity {
    return {id: `${prefix}-${randomBytes(12).toString("hex")}`, created: Math.floor(Date.now() / 1000), model};
}

export function toUsage(result: GenerationResult): Usage {
    return {
        prompt_tokens: result.promptTokens,
        completion_tokens: result.completionTokens,
        total_tokens: result.promptTokens + result.completionTokens,
        prompt_tokens_details: {cached_tokens: result.cachedTokens},
        ...(result.reasoningTokens == null ? {} : {completion_tokens_details: {reasoning_tokens: result.reasoningTokens}})
    };
}

/** The one place engine finish reasons become OpenAI's (an aborted reply has no one to receive it). */
export function toFinishReason(reason: GenerationResult["finishReason"]): FinishReason {
    switch (reason) {
        case "length":
            return "length";
        case "toolCalls":
            return "tool_calls";
        default:
            return "stop";
    }
}

/** A call as it starts: its own id, its name, no arguments yet (they follow as text). */
export function newToolCall(name: string): ToolCall {
    return {id: `call_${randomBytes(12).toString("hex")}`, type: "function", function: {name, arguments: ""}};
}

/**
 * A non-streamed reply: with tool calls and no text before them, `content` is null as in OpenAI's
 * replies. A reasoning model's thought is `reasoning_content`, as llama-server and DeepSeek's API send it.
 */
export function chatCompletion(
    identity: ReplyIdentity, reply: {content: string, reasoning?: string, toolCalls: ToolCall[]}, result: GenerationResult
): ChatCompletion {
    const hasCalls = reply.toolCalls.length > 0;
    return {
        ...identity,
        object: "chat.completion",
        system_fingerprint: systemFingerprint,
        choices: [{
            index: 0,
            message: {
                role: "assistant",
                content: hasCalls && reply.content === "" ? null : reply.content,
                ...(reply.reasoning == null || reply.reasoning === "" ? {} : {reasoning_content: reply.reasoning}),
                refusal: null,
                ...(hasCalls ? {tool_calls: reply.toolCalls} : {})
            },
            logprobs: null,
            finish_reason: toFinishReason(result.finishReason)
        }],
        usage: toUsage(result)
    };
}

export function chatCompletionChunk(
    identity: ReplyIdentity,
    delta: ChatCompletionChunk["choices"][number]["delta"],
    finishReason: FinishReason | null,
    includeUsage: boolean
): ChatCompletionChunk {
    return {
        ...identity,
        object: "chat.completion.chunk",
        system_fingerprint: systemFingerprint,
        choices: [{index: 0, delta, logprobs: null, finish_reason: finishReason}],
        ...(includeUsage ? {usage: null} : {})
    };
}

/** With `stream_options.include_usage`, the last chunk before [DONE] carries usage and no choices. */
export function usageChunk(identity: ReplyIdentity, result: GenerationResult): ChatCompletionChunk {
    return {...identity, object: "chat.completion.chunk", system_fingerprint: systemFingerprint, choices: [], usage: toUsage(result)};
}
