import {Router} from "express";
import {cachePartitionOf} from "../../http/cachePartition.js";
import type {ReplyWriter} from "../../http/replyWriter.js";
import {parseBody} from "../parseBody.js";
import {completionBody, completionStream} from "./completionReply.js";
import {completionRequestSchema} from "./completionRequest.js";
import type {CompletionService} from "./completionService.js";

/**
 * `POST /v1/completions` (legacy text completions and fill-in-the-middle). Prompts of an array run
 * one after another; completionReply.ts says what the reply is.
 */
export function completionsRoute(service: CompletionService, replies: ReplyWriter): Router {
    const router = Router();
    router.post("/v1/completions", async (req, res) => {
        const request = parseBody(completionRequestSchema, req.body);
        // An IDE's prompt is its user's code: logged only with --log-prompts, as every prompt.
        const signal = replies.begin(res, request.model, {prompt: request.prompt, suffix: request.suffix});
        const run = await service.start(request, signal, cachePartitionOf(res));
        const release = () => run.release();
        if (request.stream === true)
            await replies.sse(res, release, (sse) => completionStream(sse, run, request.stream_options?.include_usage === true, signal));
        else
            await replies.json(res, release, () => completionBody(run, signal));
    });
    return router;
}
