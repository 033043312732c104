import type {NextFunction, Request, Response} from "express";
import type {Logger} from "pino";
import {ApiError, BadRequestError, ClientGoneError, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, toApiError} from "../errors.js";
import {allowedMethods} from "./allowedMethods.js";
import {envelopeOf} from "./errorEnvelope.js";
import {discardUnreadBody} from "./lingeringClose.js";
import {recordError} from "./requestLog.js";

/** Unknown routes get a 404 in the request's error envelope, not Express's HTML page; a known path asked with another method (HEAD on a POST route) a 405 with `Allow`. */
export function notFound(req: Request): never {
    const allowed = allowedMethods(req);
    if (allowed.length > 0)
        throw new MethodNotAllowedError(req.method, req.path, allowed);
    throw new NotFoundError(`Unknown request URL: ${req.method} ${req.path}. Please check the URL and method.`, "unknown_url");
}

/**
 * The single place an error becomes a response. Body-parser failures, and any error of the HTTP
 * layer with a 4xx status, are client errors; anything else that is not an ApiError is a bug:
 * logged in full, answered with a generic 500.
 */
export function errorHandler(logger: Logger) {
    return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
        if (error instanceof ClientGoneError) {
            // The client left (e.g. while queued for a sequence): nobody to answer, nothing went wrong.
            logger.debug({event: "client_gone", reqId: res.locals.requestId});
            return;
        }
        const apiError = fromBodyParser(error) ?? toApiError(error);
        // A bug is logged even when its client has gone meanwhile.
        if (!(error instanceof ApiError) && apiError.status >= 500)
            logger.error({event: "unhandled_error", reqId: res.locals.requestId, path: req.path, err: error}, "unhandled error");
        if (res.destroyed)
            return;

        if (res.headersSent) {
            res.end();
            return;
        }
        // A refusal before the body was read (a 413 for its declared size, a 401, a 405) leaves the rest to
        // be read and dropped, so that a client still writing it gets this answer, not a reset (lingeringClose.ts).
        discardUnreadBody(req, res);
        sendError(res, apiError);
    };
}

/** An error as the whole response, in the envelope of the request's API (errorEnvelope.ts), named in the request's log line. */
export function sendError(res: Response, error: ApiError): void {
    recordError(res, error);
    const {status, body} = envelopeOf(res).response(error);
    res.status(status).set(error.headers).json(body);
}

function fromBodyParser(error: unknown): ApiError | undefined {
    const type = (error as {type?: unknown} | null)?.type;
    switch (type) {
        case "entity.parse.failed":
            return new BadRequestError(`The request body is not valid JSON: ${(error as Error).message}`, {code: "invalid_json"});
        case "entity.too.large":
            return new PayloadTooLargeError(String((error as {limit?: number}).limit ?? "configured") + " bytes");
        case "encoding.unsupported":
        case "charset.unsupported":
            return new ApiError(415, (error as Error).message, "invalid_request_error", "unsupported_media_type");
        case "request.aborted":
            return new BadRequestError("The request was aborted while its body was being read.");
        default:
            return clientErrorStatus(error);
    }
}

/** Other errors of the HTTP layer that carry a 4xx status (a body that is not the gzip it claims, a malformed percent-escape in the URL) are the client's. */
function clientErrorStatus(error: unknown): ApiError | undefined {
    const status = (error as {status?: unknown} | null)?.status;
    if (typeof status !== "number" || status < 400 || status > 499 || error instanceof ApiError)
        return undefined;
    return new ApiError(status, (error as Error).message, "invalid_request_error", "invalid_request");
}
