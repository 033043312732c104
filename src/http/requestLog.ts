import {randomUUID} from "node:crypto";
import type {NextFunction, Request, Response} from "express";
import type {Logger} from "pino";
import type {GenerationResult} from "../engine/generationEvents.js";
import type {ApiError} from "../errors.js";

/**
 * Gives every request an id (the client's `x-request-id` if it sent a sane one; the official
 * SDK surfaces it on errors) and logs one structured line when the response ends or the client
 * leaves. Headers and bodies are never logged: the prompt is the user's data and the
 * Authorization header is a secret.
 */
export const clientClosedRequest = 499;

export function requestLog(logger: Logger) {
    return (req: Request, res: Response, next: NextFunction) => {
        const started = process.hrtime.bigint();
        const incoming = req.get("x-request-id");
        const requestId = incoming != null && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : `req_${randomUUID().replaceAll("-", "")}`;
        res.locals.requestId = requestId;
        res.setHeader("x-request-id", requestId);

        res.on("close", () => {
            const usage = res.locals.usage as GenerationResult | undefined;
            logger.info({
                event: "request",
                reqId: requestId,
                method: req.method,
                path: req.path,
                // A client that left before any reply was sent got none: nginx's 499, not the 200 Express presets.
                status: res.headersSent ? res.statusCode : clientClosedRequest,
                aborted: !res.writableFinished || undefined,
                model: res.locals.model as string | undefined,
                promptTokens: usage?.promptTokens,
                cachedTokens: usage?.cachedTokens,
                completionTokens: usage?.completionTokens,
                error: res.locals.errorCode as string | undefined,
                ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000
            });
        });
        next();
    };
}

/** Whatever answers with an error calls this so the request's log line says which (its code, else its type). */
export function recordError(res: Response, error: ApiError): void {
    res.locals.errorCode = error.code ?? error.type;
}

/** Routes call this so the request's log line (and its metrics) carry its token counts. */
export function recordUsage(res: Response, result: GenerationResult): void {
    res.locals.usage = result;
    // The metrics of a request whose client left wait for this (http/requestMetrics.ts).
    (res.locals.onUsage as ((usage: GenerationResult) => void) | undefined)?.(result);
}

/** A reply that never reached its client (it left, or the server stopped): its tokens count, as an abort. */
export function abandoned(result: GenerationResult): GenerationResult {
    return {...result, finishReason: "abort"};
}
