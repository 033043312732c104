import type {Response} from "express";
import {ApiError} from "../errors.js";
import type {SseWriter} from "./sseWriter.js";

/** Why a request's work stopped when its client went away: nobody to answer, nothing went wrong. */
export class ClientGoneError extends Error {
    public constructor() {
        super("client disconnected");
    }
}

/**
 * An AbortSignal that fires when the client goes away before the response is complete, or when
 * the server stops serving (`stopping`, at the end of the shutdown grace period) with an ApiError
 * that the client is still there to read.
 * `res` rather than `req`: a POST's request stream emits "close" as soon as its body is read.
 */
export function abortWhenClientLeaves(res: Response, stopping?: AbortSignal): AbortSignal {
    const controller = new AbortController();
    const onStop = () => controller.abort(stopping!.reason);
    stopping?.addEventListener("abort", onStop, {once: true});
    res.on("close", () => {
        stopping?.removeEventListener("abort", onStop);
        if (!res.writableFinished)
            controller.abort(new ClientGoneError());
    });
    return controller.signal;
}

/**
 * For a generation that ended aborted: when the server stopped it, the client is still there to
 * read why, so the error is thrown (a reply not sent yet) or sent as the stream's error event.
 * Nothing when the client itself left.
 */
export function passOnStop(signal: AbortSignal, stream?: SseWriter): void {
    if (!(signal.reason instanceof ApiError))
        return;
    if (stream == null)
        throw signal.reason;
    stream.fail(signal.reason.toBody());
}
