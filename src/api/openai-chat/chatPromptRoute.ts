import {Router} from "express";
import type {ConversationService} from "../../conversation/conversationService.js";
import {cachePartitionOf} from "../../http/cachePartition.js";
import {parseBody} from "../parseBody.js";
import {chatCompletionRequestSchema} from "./chatCompletionRequest.js";
import {toConversation} from "./toConversation.js";

/**
 * A chat completion's prompt without generating, as llama-server offers it: `POST /apply-template`
 * (the prompt's text, `{prompt}`) and `POST /v1/chat/completions/input_tokens` (its length, which
 * the same request's `usage.prompt_tokens` reports). The body is the chat completion's, checked
 * and converted as it is there, then rendered by the same conversation service: tools, images,
 * response_format and the thinking switch shape the prompt as they would shape the request's.
 */
export function chatPromptRoute(service: ConversationService): Router {
    const router = Router();
    router.post("/apply-template", async (req, res) => {
        const request = parseBody(chatCompletionRequestSchema, req.body);
        res.locals.model = request.model;
        const {text} = await service.renderPrompt({...toConversation(request), cachePartition: cachePartitionOf(res)});
        res.json({prompt: text});
    });
    router.post("/v1/chat/completions/input_tokens", async (req, res) => {
        const request = parseBody(chatCompletionRequestSchema, req.body);
        res.locals.model = request.model;
        const tokens = await service.countPromptTokens({...toConversation(request), cachePartition: cachePartitionOf(res)});
        res.json({object: "response.input_tokens", input_tokens: tokens});
    });
    return router;
}
