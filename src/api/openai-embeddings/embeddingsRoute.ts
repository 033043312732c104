import {Router} from "express";
import type {ReplyWriter} from "../../http/replyWriter.js";
import type {EmbeddingService} from "./embeddingService.js";
import {embeddingRequestSchema} from "./embeddingRequest.js";
import {parseBody} from "../parseBody.js";

/** `POST /v1/embeddings`. Its input is not logged with --log-prompts (no prompt is passed to `begin`). */
export function embeddingsRoute(service: EmbeddingService, replies: ReplyWriter): Router {
    const router = Router();
    router.post("/v1/embeddings", async (req, res) => {
        const request = parseBody(embeddingRequestSchema, req.body);
        const embeddings = await service.embed(request, replies.begin(res, request.model));
        // The server's stop may have answered meanwhile.
        if (!res.headersSent)
            res.json(embeddings);
    });
    return router;
}
