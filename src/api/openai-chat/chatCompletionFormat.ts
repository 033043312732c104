import {randomBytes} from "node:crypto";
import type {GenerationResult} from "../../engine/generationEvents.js";
import type {ChatCompletion, ChatCompletionChunk, ChoiceLogprobs, FinishReason, ToolCall} from "./chatCompletionResponse.js";
import {systemFingerprint, toFinishReason, toUsage, type ReplyIdentity} from "../openai-shared/replyFields.js";

/** A call as it starts: its own id (the model's, where its syntax names calls), its name, no arguments yet (they follow as text). */
export function newToolCall(name: string, id?: string): ToolCall {
    return {id: id ?? `call_${randomBytes(12).toString("hex")}`, type: "function", function: {name, arguments: ""}};
}

/**
 * A non-streamed reply: with tool calls and no text before them, `content` is null as in OpenAI's
 * replies, and so it is for a reply that could only be calls (`opensWithCall`) even when max_tokens
 * cut it before its first call had a name. A reasoning model's thought is `reasoning_content`, as
 * llama-server and DeepSeek's API send it.
 */
export function chatCompletion(
    identity: ReplyIdentity, reply: ChoiceReply, result: GenerationResult,
    /** With `n` > 1, the other choices (index 1 on), and usage's result counting every choice. */
    more: {choices: Array<{reply: ChoiceReply, result: GenerationResult}>, usage: GenerationResult} = {choices: [], usage: result}
): ChatCompletion {
    return {
        ...identity,
        object: "chat.completion",
        system_fingerprint: systemFingerprint,
        choices: [{reply, result}, ...more.choices].map((choice, index) => completionChoice(index, choice.reply, choice.result)),
        usage: toUsage(more.usage)
    };
}

/** What one choice of a non-streamed reply says; `logprobs` only when the request asked for them. */
export type ChoiceReply = {content: string, reasoning?: string, toolCalls: ToolCall[], opensWithCall?: boolean, logprobs?: ChoiceLogprobs};

function completionChoice(index: number, reply: ChoiceReply, result: GenerationResult): ChatCompletion["choices"][number] {
    const hasCalls = reply.toolCalls.length > 0;
    return {
        index,
        message: {
            role: "assistant",
            content: (hasCalls || reply.opensWithCall === true) && reply.content === "" ? null : reply.content,
            ...(reply.reasoning == null || reply.reasoning === "" ? {} : {reasoning_content: reply.reasoning}),
            refusal: null,
            ...(hasCalls ? {tool_calls: reply.toolCalls} : {})
        },
        logprobs: reply.logprobs ?? null,
        finish_reason: toFinishReason(result.finishReason)
    };
}

export function chatCompletionChunk(
    identity: ReplyIdentity,
    delta: ChatCompletionChunk["choices"][number]["delta"],
    finishReason: FinishReason | null,
    includeUsage: boolean,
    /** Which choice (`n` > 1), and the logprobs of the tokens of its text. */
    {index = 0, logprobs = null}: {index?: number, logprobs?: ChoiceLogprobs} = {}
): ChatCompletionChunk {
    return {
        ...identity,
        object: "chat.completion.chunk",
        system_fingerprint: systemFingerprint,
        choices: [{index, delta, logprobs, finish_reason: finishReason}],
        ...(includeUsage ? {usage: null} : {})
    };
}

/**
 * A stream's text chunks as JSON, for the text of any token. The chunk is serialised once with a
 * placeholder and each token's text spliced in as a JSON string: the same bytes as serialising
 * `chatCompletionChunk` per token, without building and walking an object for each (an event per
 * token runs between two decodes, on the cores the decode needs).
 */
export function contentChunkJson(identity: ReplyIdentity, includeUsage: boolean, index = 0): (text: string) => string {
    const placeholder = "\u0000chatserve content\u0000";
    const parts = JSON.stringify(chatCompletionChunk(identity, {content: placeholder}, null, includeUsage, {index})).split(JSON.stringify(placeholder));
    if (parts.length !== 2)
        return (text) => JSON.stringify(chatCompletionChunk(identity, {content: text}, null, includeUsage, {index}));
    const [head, tail] = parts as [string, string];
    return (text) => head + JSON.stringify(text) + tail;
}

/** With `stream_options.include_usage`, the last chunk before [DONE] carries usage and no choices. */
export function usageChunk(identity: ReplyIdentity, result: GenerationResult): ChatCompletionChunk {
    return {...identity, object: "chat.completion.chunk", system_fingerprint: systemFingerprint, choices: [], usage: toUsage(result)};
}
