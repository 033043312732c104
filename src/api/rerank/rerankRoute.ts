import {Router} from "express";
import type {ReplyWriter} from "../../http/replyWriter.js";
import {parseBody} from "../parseBody.js";
import {rerankRequestSchema} from "./rerankRequest.js";
import type {RerankService} from "./rerankService.js";

/**
 * The paths llama-server answers reranking on (Jina's and Cohere's v1 `/v1/rerank`, and its aliases),
 * and Cohere's v2 path, which its current SDK (CohereClientV2) posts to.
 */
export const rerankPaths = ["/v1/rerank", "/rerank", "/v1/reranking", "/reranking", "/v2/rerank"];

/** `POST /v1/rerank` and its aliases. Like embeddings', its texts are not logged with --log-prompts. */
export function rerankRoute(service: RerankService, replies: ReplyWriter): Router {
    const router = Router();
    router.post(rerankPaths, async (req, res) => {
        const request = parseBody(rerankRequestSchema, req.body);
        const reply = await service.rerank(request, replies.begin(res, service.modelFor(request)));
        // The server's stop may have answered meanwhile.
        if (!res.headersSent)
            res.json(reply);
    });
    return router;
}
