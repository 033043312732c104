import type {Response} from "express";
import {ApiError} from "../errors.js";

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
            controller.abort(new Error("client disconnected"));
    });
    return controller.signal;
}

/** Why a generation stopped early if someone is still listening (the server is stopping); null when the client left. */
export function stopReason(signal: AbortSignal): ApiError | null {
    return signal.reason instanceof ApiError ? signal.reason : null;
}
