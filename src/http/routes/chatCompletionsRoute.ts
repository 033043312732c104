import {Router, type Response} from "express";
import type {Logger} from "pino";
import {chatCompletion, chatCompletionChunk, contentChunkJson, newToolCall, usageChunk} from "../../chat/chatCompletionFormat.js";
import type {ChatCompletionService, ChatGeneration} from "../../chat/chatCompletionService.js";
import type {GenerationResult} from "../../engine/types.js";
import {chatCompletionRequestSchema} from "../../protocol/chatCompletionRequest.js";
import type {ChatCompletionChunk, ToolCall} from "../../protocol/chatCompletionResponse.js";
import {parseBody} from "../../protocol/parseBody.js";
import {toFinishReason} from "../../protocol/replyFields.js";
import {abortWhenClientLeaves} from "../clientAbort.js";
import {consumeGeneration} from "../consumeGeneration.js";
import {SseWriter} from "../sseWriter.js";
import {recordUsage} from "../requestLog.js";

/** `POST /v1/chat/completions`: the body's shape is checked here, the rest of validation and the model's work happen in the service; this file writes the reply. */
export function chatCompletionsRoute(service: ChatCompletionService, logger: Logger, options: {logPrompts: boolean, stopping?: AbortSignal}): Router {
    const router = Router();
    router.post("/v1/chat/completions", async (req, res) => {
        const request = parseBody(chatCompletionRequestSchema, req.body);
        res.locals.model = request.model;
        // Prompts are the user's data: logged only when the operator asked with --log-prompts.
        if (options.logPrompts)
            logger.info({event: "prompt", reqId: res.locals.requestId, model: request.model, messages: request.messages});
        const signal = abortWhenClientLeaves(res, options.stopping);
        const generation = await service.start(request, signal);
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

async function sendReply(res: Response, generation: ChatGeneration): Promise<void> {
    let content = "";
    let reasoning = "";
    const toolCalls: ToolCall[] = [];
    const result = await consumeGeneration(generation.events, {
        text: (text) => content += text,
        reasoning: (text) => reasoning += text,
        toolCall: (index, name) => toolCalls[index] = newToolCall(name),
        toolArguments: (index, text) => toolCalls[index]!.function.arguments += text
    });
    // Aborted: its client left, or the server's stop answered it already (as it may have just as the reply ended).
    if (result.finishReason === "abort" || res.headersSent)
        return;
    recordUsage(res, result);
    res.json(chatCompletion(generation.identity, {content, reasoning, toolCalls, opensWithCall: generation.opensWithCall}, result));
}

async function streamReply(res: Response, generation: ChatGeneration, includeUsage: boolean, logger: Logger): Promise<void> {
    const sse = new SseWriter(res);
    const {identity} = generation;
    sse.open();
    // OpenAI's first chunk announces the role, with empty content, or none for a reply of calls
    // (the Vercel AI SDK otherwise emits an empty text part before them).
    sse.send(chatCompletionChunk(identity, {role: "assistant", content: generation.opensWithCall ? null : ""}, null, includeUsage));
    try {
        const send = (delta: ChatCompletionChunk["choices"][number]["delta"]) => sse.send(chatCompletionChunk(identity, delta, null, includeUsage));
        const textChunk = contentChunkJson(identity, includeUsage);
        const result = await consumeGeneration(generation.events, {
            text: (text) => sse.sendJson(textChunk(text)),
            reasoning: (text) => send({reasoning_content: text}),
            toolCall: (index, name) => send({tool_calls: [{index, ...newToolCall(name)}]}),
            toolArguments: (index, text) => send({tool_calls: [{index, function: {arguments: text}}]}),
            keepAlive: (comment) => sse.comment(comment)
        });
        finishStream(sse, res, generation, result, includeUsage);
    } catch (error) {
        sse.failWith(error, logger);
    }
}

function finishStream(sse: SseWriter, res: Response, generation: ChatGeneration, result: GenerationResult, includeUsage: boolean): void {
    // Aborted: its client left, or the server's stop ended the stream with its error event.
    if (result.finishReason === "abort" || sse.closed)
        return;
    recordUsage(res, result);
    sse.send(chatCompletionChunk(generation.identity, {}, toFinishReason(result.finishReason), includeUsage));
    if (includeUsage)
        sse.send(usageChunk(generation.identity, result));
    sse.done();
}
