import type {Response} from "express";

/**
 * An AbortSignal that fires when the client goes away before the response is complete.
 * `res` rather than `req`: a POST's request stream emits "close" as soon as its body is read.
 */
export function abortWhenClientLeaves(res: Response): AbortSignal {
    const controller = new AbortController();
    res.on("close", () => {
        if (!res.writableFinished)
            controller.abort(new Error("client disconnected"));
    });
    return controller.signal;
}
