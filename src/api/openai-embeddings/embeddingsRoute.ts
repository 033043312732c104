import {Router} from "express";
import type {EmbeddingService} from "./embeddingService.js";
import {embeddingRequestSchema} from "./embeddingRequest.js";
import {parseBody} from "../parseBody.js";
import {abortWhenClientLeaves} from "../../http/clientAbort.js";

/** `POST /v1/embeddings`. */
export function embeddingsRoute(service: EmbeddingService, stopping?: AbortSignal): Router {
    const router = Router();
    router.post("/v1/embeddings", async (req, res) => {
        const request = parseBody(embeddingRequestSchema, req.body);
        res.locals.model = request.model;
        const embeddings = await service.embed(request, abortWhenClientLeaves(res, stopping));
        // The server's stop may have answered meanwhile.
        if (!res.headersSent)
            res.json(embeddings);
    });
    return router;
}
