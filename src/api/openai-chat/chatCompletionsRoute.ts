import {Router} from "express";
import type {ConversationService} from "../../conversation/conversationService.js";
import {cachePartitionOf} from "../../http/cachePartition.js";
import type {ReplyWriter} from "../../http/replyWriter.js";
import {parseBody} from "../parseBody.js";
import {newReplyIdentity} from "../openai-shared/replyFields.js";
import {chatCompletionRequestSchema} from "./chatCompletionRequest.js";
import {chatCompletionBody, chatCompletionStream} from "./chatCompletionReply.js";
import {toConversation} from "./toConversation.js";

/**
 * `POST /v1/chat/completions`: the body's shape is checked here, the rest of validation and the
 * model's work happen in the conversation service, and chatCompletionReply.ts says what the reply is.
 */
export function chatCompletionsRoute(service: ConversationService, replies: ReplyWriter): Router {
    const router = Router();
    router.post("/v1/chat/completions", async (req, res) => {
        const request = parseBody(chatCompletionRequestSchema, req.body);
        const signal = replies.begin(res, request.model, {messages: request.messages});
        const conversation = {...toConversation(request), cachePartition: cachePartitionOf(res)};
        const generation = {...await service.start(conversation, signal), identity: newReplyIdentity(request.model)};
        const release = () => generation.release();
        if (request.stream === true)
            await replies.sse(res, release, (sse) => chatCompletionStream(sse, generation, request.stream_options?.include_usage === true));
        else
            await replies.json(res, release, () => chatCompletionBody(generation));
    });
    return router;
}
