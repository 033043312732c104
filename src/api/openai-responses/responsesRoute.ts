import {Router, type Response} from "express";
import type {Logger} from "pino";
import {toApiError} from "../../errors.js";
import {parseBody} from "../parseBody.js";
import {responsesRequestSchema} from "./responsesRequest.js";
import {ResponseBuilder, type ResponseEventSink} from "./responseBuilder.js";
import type {ResponseRun, ResponsesService} from "./responsesService.js";
import {abortWhenClientLeaves} from "../../http/clientAbort.js";
import {consumeGeneration} from "../../http/consumeGeneration.js";
import {abandoned, recordError, recordUsage} from "../../http/requestLog.js";
import {SseWriter} from "../../http/sseWriter.js";

/**
 * OpenAI's Responses API: `POST /v1/responses` (streamed or not), `POST /v1/responses/input_tokens`,
 * `GET` and `DELETE /v1/responses/{id}`. The service translates and validates; this file writes replies.
 */
export function responsesRoute(service: ResponsesService, logger: Logger, options: {logPrompts: boolean, stopping?: AbortSignal}): Router {
    const router = Router();
    const ownerOf = (res: Response) => (res.locals.keyOwner as string | undefined) ?? "";

    router.post("/v1/responses", async (req, res) => {
        const request = parseBody(responsesRequestSchema, req.body);
        res.locals.model = request.model;
        if (options.logPrompts)
            logger.info({event: "prompt", reqId: res.locals.requestId, model: request.model, instructions: request.instructions, input: request.input});
        const signal = abortWhenClientLeaves(res, options.stopping);
        const run = await service.start(request, ownerOf(res), signal);
        try {
            if (request.stream === true)
                await streamResponse(res, run, logger, (response) => service.keep(ownerOf(res), run, response));
            else
                await sendResponse(res, run, (response) => service.keep(ownerOf(res), run, response));
        } finally {
            run.generation.release();
        }
    });

    router.post("/v1/responses/input_tokens", async (req, res) => {
        // OpenAI's model is optional here; a local server has no default model to count with.
        const request = parseBody(responsesRequestSchema, req.body);
        res.locals.model = request.model;
        const tokens = await service.countInputTokens(request, ownerOf(res));
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

type Keep = (response: ReturnType<ResponseBuilder["finish"]>) => void;

async function sendResponse(res: Response, run: ResponseRun, keep: Keep): Promise<void> {
    const builder = new ResponseBuilder(run.snapshot, run.tools, () => undefined);
    const result = await consumeGeneration(run.generation.events, handlersOf(builder));
    if (result.finishReason === "abort" || res.headersSent)
        return recordUsage(res, abandoned(result));
    recordUsage(res, result);
    const response = builder.finish(result);
    keep(response);
    res.json(response);
}

/**
 * `event:` + `data:` per event, each with its `sequence_number`, ending with `response.completed`
 * (or `response.incomplete`); a failure after the start is `response.failed` with the error.
 */
async function streamResponse(res: Response, run: ResponseRun, logger: Logger, keep: Keep): Promise<void> {
    const sse = new SseWriter(res);
    let sequence = 0;
    const emit: ResponseEventSink = (type, payload) => sse.sendEvent(type, JSON.stringify({type, sequence_number: sequence++, ...payload}));
    const builder = new ResponseBuilder(run.snapshot, run.tools, emit);
    sse.open();
    builder.start();
    try {
        const result = await consumeGeneration(run.generation.events, {
            ...handlersOf(builder),
            keepAlive: (comment) => sse.comment(comment)
        });
        if (result.finishReason === "abort" || sse.closed)
            return recordUsage(res, abandoned(result));
        recordUsage(res, result);
        const response = builder.finish(result);
        keep(response);
        emit(response.status === "incomplete" ? "response.incomplete" : "response.completed", {response});
        sse.close();
    } catch (error) {
        const apiError = toApiError(error);
        if (apiError.status >= 500)
            logger.error({event: "stream_failed", reqId: res.locals.requestId, err: error}, "generation failed mid-stream");
        recordError(res, apiError.toBody());
        Object.assign(run.snapshot, {status: "failed", error: {code: apiError.code ?? apiError.type, message: apiError.message}});
        emit("response.failed", {response: run.snapshot});
        sse.close();
    }
}

function handlersOf(builder: ResponseBuilder) {
    return {
        text: (text: string) => builder.text(text),
        reasoning: (text: string) => builder.reasoning(text),
        toolCall: (index: number, name: string) => builder.toolCall(index, name),
        toolArguments: (index: number, text: string) => builder.toolArguments(index, text)
    };
}
