import {Router, type Response} from "express";
import type {Logger} from "pino";
import type {ChatGeneration} from "../../conversation/conversationService.js";
import {MessageBuilder, type MessageEventSink} from "./anthropicMessageBuilder.js";
import type {MessagesService} from "./messagesService.js";
import {countTokensRequestSchema, messagesRequestSchema} from "./messagesRequest.js";
import {parseBody} from "../parseBody.js";
import {abortWhenClientLeaves} from "../../http/clientAbort.js";
import {consumeGeneration} from "../../http/consumeGeneration.js";
import {abandoned, recordUsage} from "../../http/requestLog.js";
import {SseWriter} from "../../http/sseWriter.js";

/**
 * Anthropic's Messages API: `POST /v1/messages` (streamed or not; a query string such as Claude
 * Code's `?beta=true` is fine) and `POST /v1/messages/count_tokens`. Errors are Anthropic's envelope
 * (errorDialect.ts). The service translates and validates; this file writes replies.
 */
export function messagesRoute(service: MessagesService, logger: Logger, options: {logPrompts: boolean, stopping?: AbortSignal}): Router {
    const router = Router();
    router.post("/v1/messages", async (req, res) => {
        const request = parseBody(messagesRequestSchema, req.body);
        res.locals.model = request.model;
        if (options.logPrompts)
            logger.info({event: "prompt", reqId: res.locals.requestId, model: request.model, system: request.system, messages: request.messages});
        const signal = abortWhenClientLeaves(res, options.stopping);
        const generation = await service.start(request, signal);
        try {
            if (request.stream === true)
                await streamMessage(res, request.model, generation, logger);
            else
                await sendMessage(res, request.model, generation);
        } finally {
            generation.release();
        }
    });

    router.post("/v1/messages/count_tokens", async (req, res) => {
        const request = parseBody(countTokensRequestSchema, req.body);
        res.locals.model = request.model;
        res.json({input_tokens: await service.countTokens({...request, max_tokens: request.max_tokens ?? 1})});
    });
    return router;
}

async function sendMessage(res: Response, model: string, generation: ChatGeneration): Promise<void> {
    const builder = new MessageBuilder(model, () => undefined);
    const result = await consumeGeneration(generation.events, handlersOf(builder));
    if (result.finishReason === "abort" || res.headersSent)
        return recordUsage(res, abandoned(result));
    recordUsage(res, result);
    res.json(builder.finish(result, result.stopSequence ?? null));
}

/**
 * Anthropic's event sequence: `message_start`, a `ping`, per block `content_block_start`, its
 * deltas and `content_block_stop`, then `message_delta` and `message_stop`. A long prompt's
 * progress is sent as `ping` events; a failure after the start is an `error` event.
 */
async function streamMessage(res: Response, model: string, generation: ChatGeneration, logger: Logger): Promise<void> {
    const sse = new SseWriter(res);
    const emit: MessageEventSink = (type, payload) => sse.sendEvent(type, JSON.stringify({type, ...payload}));
    const builder = new MessageBuilder(model, emit);
    sse.open();
    builder.start(generation.promptTokens);
    emit("ping", {});
    try {
        const result = await consumeGeneration(generation.events, {...handlersOf(builder), keepAlive: () => emit("ping", {})});
        if (result.finishReason === "abort" || sse.closed)
            return recordUsage(res, abandoned(result));
        recordUsage(res, result);
        builder.finish(result, result.stopSequence ?? null);
        sse.close();
    } catch (error) {
        sse.failWith(error, logger);
    }
}

function handlersOf(builder: MessageBuilder) {
    return {
        text: (text: string) => builder.text(text),
        reasoning: (text: string) => builder.thinking(text),
        toolCall: (_index: number, name: string) => builder.toolUse(name),
        toolArguments: (_index: number, text: string) => builder.toolInput(text)
    };
}

