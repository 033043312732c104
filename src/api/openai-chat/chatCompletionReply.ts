import type {GenerationResult} from "../../engine/generationEvents.js";
import type {GenerationEvents, JsonReplyFormat, StreamReplyFormat} from "../../http/replyFormat.js";
import type {SseWriter} from "../../http/sseWriter.js";
import {toFinishReason, type ReplyIdentity} from "../openai-shared/replyFields.js";
import {chatCompletion, chatCompletionChunk, contentChunkJson, newToolCall, usageChunk, type ChoiceReply} from "./chatCompletionFormat.js";
import type {ChatCompletionChunk, ToolCall} from "./chatCompletionResponse.js";
import {ContentLogprobs} from "./contentLogprobs.js";

/** What a chat completion is written from: its choices' events and what the reply says of them. */
export type ChatReplySource = {
    /** The id, time and model every chunk of the reply carries. */
    identity: ReplyIdentity,
    /** `tool_choice` "required" or named: the reply is calls from its first token, so its content is null. */
    opensWithCall: boolean,
    /** Whether each choice reports its tokens' logprobs. */
    logprobs: boolean,
    events: GenerationEvents,
    /** With `n` > 1, choices 1 on, each started once the one before has ended. */
    moreChoices: ReadonlyArray<() => GenerationEvents>
};

/** A non-streamed chat completion: each choice assembled from its events, all of them in one body. */
export function chatCompletionBody(source: ChatReplySource): JsonReplyFormat {
    const choices: Array<{reply: ChoiceReply, result: GenerationResult}> = [];
    return {
        choices: 1 + source.moreChoices.length,
        usage: chatUsage,
        startChoice: (index) => {
            let content = "";
            let reasoning = "";
            const toolCalls: ToolCall[] = [];
            const logprobs = new ContentLogprobs();
            return {
                events: eventsOf(source, index),
                handlers: {
                    text: (text) => {
                        content += text;
                        logprobs.takeForText();
                    },
                    reasoning: (text) => {
                        reasoning += text;
                        logprobs.discard();
                    },
                    toolCall: (callIndex, name, id) => {
                        toolCalls[callIndex] = newToolCall(name, id);
                        logprobs.discard();
                    },
                    toolArguments: (callIndex, text) => {
                        toolCalls[callIndex]!.function.arguments += text;
                        logprobs.discard();
                    },
                    logprobs: (token) => logprobs.add(token)
                },
                end: (result) => choices.push({
                    reply: {content, reasoning, toolCalls, opensWithCall: source.opensWithCall, ...(source.logprobs ? {logprobs: logprobs.forReply()} : {})},
                    result
                })
            };
        },
        body: (usage) => {
            const [first, ...more] = choices;
            return chatCompletion(source.identity, first!.reply, first!.result, {choices: more, usage});
        }
    };
}

/**
 * A streamed chat completion: each choice's chunks, each with its `index` (with logprobs, a text
 * chunk carries those of its tokens) and its finish reason; then, with `include_usage`, a chunk
 * of usage and no choices; then `[DONE]`.
 */
export function chatCompletionStream(sse: SseWriter, source: ChatReplySource, includeUsage: boolean): StreamReplyFormat {
    const {identity} = source;
    return {
        choices: 1 + source.moreChoices.length,
        usage: chatUsage,
        startChoice: (index) => {
            const events = eventsOf(source, index);
            const send = (delta: ChatCompletionChunk["choices"][number]["delta"]) => sse.send(chatCompletionChunk(identity, delta, null, includeUsage, {index}));
            // OpenAI's first chunk announces the role, with empty content, or none for a reply of calls
            // (the Vercel AI SDK otherwise emits an empty text part before them).
            send({role: "assistant", content: source.opensWithCall ? null : ""});
            const logprobs = new ContentLogprobs();
            const textChunk = contentChunkJson(identity, includeUsage, index);
            return {
                events,
                handlers: {
                    text: source.logprobs
                        ? (text) => sse.send(chatCompletionChunk(identity, {content: text}, null, includeUsage, {index, logprobs: {content: logprobs.takeForText(), refusal: null}}))
                        : (text) => sse.sendJson(textChunk(text)),
                    reasoning: (text) => {
                        logprobs.discard();
                        send({reasoning_content: text});
                    },
                    toolCall: (callIndex, name, id) => {
                        logprobs.discard();
                        send({tool_calls: [{index: callIndex, ...newToolCall(name, id)}]});
                    },
                    toolArguments: (callIndex, text) => {
                        logprobs.discard();
                        send({tool_calls: [{index: callIndex, function: {arguments: text}}]});
                    },
                    logprobs: (token) => logprobs.add(token)
                },
                end: (result) => sse.send(chatCompletionChunk(identity, {}, toFinishReason(result.finishReason), includeUsage, {index}))
            };
        },
        finish: (usage) => {
            if (includeUsage)
                sse.send(usageChunk(identity, usage));
            sse.done();
        }
    };
}

/** Choice `index`'s events: the first choice's, or (`n` > 1) a later one's, started now. */
function eventsOf(source: ChatReplySource, index: number): GenerationEvents {
    return index === 0 ? source.events : source.moreChoices[index - 1]!();
}

/** Usage counts the prompt once, however many choices came of it, and every choice's tokens (as OpenAI does). */
function chatUsage(results: readonly GenerationResult[]): GenerationResult {
    const sum = (count: (result: GenerationResult) => number | undefined) => results.reduce((total, result) => total + (count(result) ?? 0), 0);
    return {
        ...results[0]!,
        completionTokens: sum((result) => result.completionTokens),
        ...(results[0]!.reasoningTokens == null ? {} : {reasoningTokens: sum((result) => result.reasoningTokens)})
    };
}
