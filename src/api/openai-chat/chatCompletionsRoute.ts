import {Router, type Response} from "express";
import type {Logger} from "pino";
import {chatCompletion, chatCompletionChunk, contentChunkJson, newToolCall, usageChunk, type ChoiceReply} from "./chatCompletionFormat.js";
import {ContentLogprobs} from "./contentLogprobs.js";
import type {ConversationService, ChatGeneration as Generation} from "../../conversation/conversationService.js";
import type {GenerationResult} from "../../engine/types.js";
import {chatCompletionRequestSchema} from "./chatCompletionRequest.js";
import type {ChatCompletionChunk, ToolCall} from "./chatCompletionResponse.js";
import {parseBody} from "../parseBody.js";
import {newReplyIdentity, toFinishReason, type ReplyIdentity} from "../openai-shared/replyFields.js";
import {toConversation} from "./toConversation.js";
import {abortWhenClientLeaves} from "../../http/clientAbort.js";
import {consumeGeneration} from "../../http/consumeGeneration.js";
import {SseWriter} from "../../http/sseWriter.js";
import {abandoned, recordUsage} from "../../http/requestLog.js";

/** A chat generation and the id, time and model its chunks all carry. */
type ChatGeneration = Generation & {identity: ReplyIdentity};

/** `POST /v1/chat/completions`: the body's shape is checked here, the rest of validation and the model's work happen in the service; this file writes the reply. */
export function chatCompletionsRoute(service: ConversationService, logger: Logger, options: {logPrompts: boolean, stopping?: AbortSignal}): Router {
    const router = Router();
    router.post("/v1/chat/completions", async (req, res) => {
        const request = parseBody(chatCompletionRequestSchema, req.body);
        res.locals.model = request.model;
        // Prompts are the user's data: logged only when the operator asked with --log-prompts.
        if (options.logPrompts)
            logger.info({event: "prompt", reqId: res.locals.requestId, model: request.model, messages: request.messages});
        const signal = abortWhenClientLeaves(res, options.stopping);
        const generation = {...await service.start(toConversation(request), signal), identity: newReplyIdentity(request.model)};
        try {
            if (request.stream === true)
                await streamReply(res, generation, request.stream_options?.include_usage === true, logger);
            else
                await sendReply(res, generation);
        } finally {
            generation.release();
        }
    });
    return router;
}

/** Each choice's events in turn: the first, then (`n` > 1) the others, each once the one before has ended. */
function choicesOf(generation: ChatGeneration): Array<() => ChatGeneration["events"]> {
    return [() => generation.events, ...generation.moreChoices];
}

/** Usage counts the prompt once, however many choices came of it, and every choice's tokens (as OpenAI does). */
function usageOf(results: readonly GenerationResult[]): GenerationResult {
    const sum = (count: (result: GenerationResult) => number | undefined) => results.reduce((total, result) => total + (count(result) ?? 0), 0);
    return {
        ...results[0]!,
        completionTokens: sum((result) => result.completionTokens),
        ...(results[0]!.reasoningTokens == null ? {} : {reasoningTokens: sum((result) => result.reasoningTokens)})
    };
}

async function sendReply(res: Response, generation: ChatGeneration): Promise<void> {
    const choices: Array<{reply: ChoiceReply, result: GenerationResult}> = [];
    for (const events of choicesOf(generation)) {
        let content = "";
        let reasoning = "";
        const toolCalls: ToolCall[] = [];
        const logprobs = new ContentLogprobs();
        const result = await consumeGeneration(events(), {
            text: (text) => {
                content += text;
                logprobs.takeForText();
            },
            reasoning: (text) => {
                reasoning += text;
                logprobs.discard();
            },
            toolCall: (index, name) => {
                toolCalls[index] = newToolCall(name);
                logprobs.discard();
            },
            toolArguments: (index, text) => {
                toolCalls[index]!.function.arguments += text;
                logprobs.discard();
            },
            logprobs: (token) => logprobs.add(token)
        });
        // Aborted: its client left, or the server's stop answered it already (as it may have just as the reply ended).
        // The tokens it generated still count, in its log line and /metrics.
        if (result.finishReason === "abort" || res.headersSent)
            return recordUsage(res, abandoned(usageOf([...choices.map((choice) => choice.result), result])));
        const reply = {content, reasoning, toolCalls, opensWithCall: generation.opensWithCall, ...(generation.logprobs ? {logprobs: logprobs.forReply()} : {})};
        choices.push({reply, result});
    }
    const usage = usageOf(choices.map((choice) => choice.result));
    recordUsage(res, usage);
    const [first, ...more] = choices;
    res.json(chatCompletion(generation.identity, first!.reply, first!.result, {choices: more, usage}));
}

async function streamReply(res: Response, generation: ChatGeneration, includeUsage: boolean, logger: Logger): Promise<void> {
    const sse = new SseWriter(res);
    const {identity} = generation;
    sse.open();
    try {
        const results: GenerationResult[] = [];
        for (const [index, events] of choicesOf(generation).entries()) {
            const result = await streamChoice(sse, generation, events(), index, includeUsage);
            // Aborted: its client left, or the server's stop ended the stream with its error event.
            if (result.finishReason === "abort" || sse.closed)
                return recordUsage(res, abandoned(usageOf([...results, result])));
            results.push(result);
        }
        const usage = usageOf(results);
        recordUsage(res, usage);
        if (includeUsage)
            sse.send(usageChunk(identity, usage));
        sse.done();
    } catch (error) {
        sse.failWith(error, logger);
    }
}

/** One choice's chunks, each with its `index`; with logprobs, a text chunk carries those of its tokens. */
async function streamChoice(
    sse: SseWriter, generation: ChatGeneration, events: ChatGeneration["events"], index: number, includeUsage: boolean
): Promise<GenerationResult> {
    const {identity} = generation;
    const send = (delta: ChatCompletionChunk["choices"][number]["delta"]) => sse.send(chatCompletionChunk(identity, delta, null, includeUsage, {index}));
    // OpenAI's first chunk announces the role, with empty content, or none for a reply of calls
    // (the Vercel AI SDK otherwise emits an empty text part before them).
    send({role: "assistant", content: generation.opensWithCall ? null : ""});
    const logprobs = new ContentLogprobs();
    const textChunk = contentChunkJson(identity, includeUsage, index);
    const result = await consumeGeneration(events, {
        text: generation.logprobs
            ? (text) => sse.send(chatCompletionChunk(identity, {content: text}, null, includeUsage, {index, logprobs: {content: logprobs.takeForText(), refusal: null}}))
            : (text) => sse.sendJson(textChunk(text)),
        reasoning: (text) => {
            logprobs.discard();
            send({reasoning_content: text});
        },
        toolCall: (callIndex, name) => {
            logprobs.discard();
            send({tool_calls: [{index: callIndex, ...newToolCall(name)}]});
        },
        toolArguments: (callIndex, text) => {
            logprobs.discard();
            send({tool_calls: [{index: callIndex, function: {arguments: text}}]});
        },
        logprobs: (token) => logprobs.add(token),
        keepAlive: (comment) => sse.comment(comment)
    });
    if (result.finishReason !== "abort" && !sse.closed)
        sse.send(chatCompletionChunk(identity, {}, toFinishReason(result.finishReason), includeUsage, {index}));
    return result;
}
