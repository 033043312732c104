import {Router, type Response} from "express";
import {cachePartitionOf} from "../../http/cachePartition.js";
import type {ReplyWriter} from "../../http/replyWriter.js";
import {parseBody} from "../parseBody.js";
import {responsesRequestSchema} from "./responsesRequest.js";
import {responseBody, responseStream, type KeepResponse} from "./responseReply.js";
import type {ResponsesService} from "./responsesService.js";

/**
 * OpenAI's Responses API: `POST /v1/responses` (streamed or not), `POST /v1/responses/input_tokens`,
 * `GET` and `DELETE /v1/responses/{id}`. The service converts and validates, responseReply.ts says
 * what the reply is; a finished response is kept for the key that asked (unless `store: false`).
 */
export function responsesRoute(service: ResponsesService, replies: ReplyWriter): Router {
    const router = Router();
    const ownerOf = (res: Response) => (res.locals.keyOwner as string | undefined) ?? "";

    router.post("/v1/responses", async (req, res) => {
        const request = parseBody(responsesRequestSchema, req.body);
        const signal = replies.begin(res, request.model, {instructions: request.instructions, input: request.input});
        const run = await service.start(request, ownerOf(res), signal, cachePartitionOf(res));
        const keep: KeepResponse = (response) => service.keep(ownerOf(res), run, response);
        const release = () => run.generation.release();
        if (request.stream === true)
            await replies.sse(res, release, (sse) => responseStream(sse, run, keep));
        else
            await replies.json(res, release, () => responseBody(run, keep));
    });

    router.post("/v1/responses/input_tokens", async (req, res) => {
        // OpenAI's model is optional here; a local server has no default model to count with.
        const request = parseBody(responsesRequestSchema, req.body);
        res.locals.model = request.model;
        const tokens = await service.countInputTokens(request, ownerOf(res), cachePartitionOf(res));
        res.json({object: "response.input_tokens", input_tokens: tokens});
    });

    router.get("/v1/responses/:id", (req, res) => {
        res.json(service.retrieve(ownerOf(res), req.params.id));
    });

    router.delete("/v1/responses/:id", (req, res) => {
        service.remove(ownerOf(res), req.params.id);
        res.json({id: req.params.id, object: "response", deleted: true});
    });
    return router;
}
