import {Router} from "express";
import {cachePartitionOf} from "../../http/cachePartition.js";
import type {ReplyWriter} from "../../http/replyWriter.js";
import {parseBody} from "../parseBody.js";
import {countTokensRequestSchema, messagesRequestSchema} from "./messagesRequest.js";
import {messageBody, messageStream} from "./messageReply.js";
import type {MessagesService} from "./messagesService.js";

/**
 * Anthropic's Messages API: `POST /v1/messages` (streamed or not; a query string such as Claude
 * Code's `?beta=true` is fine) and `POST /v1/messages/count_tokens`. Errors are Anthropic's envelope
 * (anthropicErrors.ts). The service converts and validates, messageReply.ts says what the reply is.
 */
export function messagesRoute(service: MessagesService, replies: ReplyWriter): Router {
    const router = Router();
    router.post("/v1/messages", async (req, res) => {
        const request = parseBody(messagesRequestSchema, req.body);
        const signal = replies.begin(res, request.model, {system: request.system, messages: request.messages});
        const generation = await service.start(request, signal, cachePartitionOf(res));
        const release = () => generation.release();
        if (request.stream === true)
            await replies.sse(res, release, (sse) => messageStream(sse, request.model, generation));
        else
            await replies.json(res, release, () => messageBody(request.model, generation));
    });

    router.post("/v1/messages/count_tokens", async (req, res) => {
        const request = parseBody(countTokensRequestSchema, req.body);
        res.locals.model = request.model;
        res.json({input_tokens: await service.countTokens({...request, max_tokens: request.max_tokens ?? 1}, cachePartitionOf(res))});
    });
    return router;
}
