import type {Response} from "express";
import {ClientGoneError, toApiError, type ApiError} from "../errors.js";
import {sendError} from "./errorHandler.js";
import {NdjsonWriter} from "./ndjsonWriter.js";
import {SseWriter} from "./sseWriter.js";

/**
 * An AbortSignal that fires when the client goes away before the response is complete, or when
 * the server stops serving (`stopping`, at the end of the shutdown grace period). A client still
 * there is then answered with the stop's reason at once: as its stream's error event, or as the
 * response if none has begun. Not when its generation next looks at the signal, which can be a
 * whole prompt batch later (seconds on a big model), once every connection has been closed.
 * `res` rather than `req`: a POST's request stream emits "close" as soon as its body is read.
 */
export function abortWhenClientLeaves(res: Response, stopping?: AbortSignal): AbortSignal {
    // A request that came in on a kept-alive connection after the stop: its listener would never fire.
    if (stopping?.aborted)
        throw toApiError(stopping.reason);
    const controller = new AbortController();
    const onStop = () => {
        controller.abort(stopping!.reason);
        answerStopped(res, toApiError(stopping!.reason));
    };
    stopping?.addEventListener("abort", onStop, {once: true});
    const onClose = () => {
        stopping?.removeEventListener("abort", onStop);
        if (!res.writableFinished)
            controller.abort(new ClientGoneError());
    };
    // A client that left between its body's end and the route's start has had its only "close" already.
    if (res.destroyed)
        onClose();
    else
        res.once("close", onClose);
    return controller.signal;
}

function answerStopped(res: Response, reason: ApiError): void {
    if (res.writableEnded || res.destroyed)
        return;
    const contentType = String(res.getHeader("Content-Type"));
    if (!res.headersSent)
        sendError(res, reason);
    else if (contentType.startsWith("text/event-stream"))
        new SseWriter(res).fail(reason);
    else if (contentType.startsWith("application/x-ndjson"))
        new NdjsonWriter(res).fail(reason);
    else
        res.end();
}
