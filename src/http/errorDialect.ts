import type {NextFunction, Request, Response} from "express";
import type {ApiError} from "../errors.js";
import {toAnthropicError} from "../api/anthropic-messages/anthropicErrors.js";

/**
 * Which API's error envelope a request is answered in. OpenAI's everywhere, but for Anthropic's
 * Messages API, whose clients parse `{"type": "error", "error": {…}}`: its routes are marked before
 * authentication and body parsing, so that a bad key or malformed JSON is answered in it too.
 */
export function useAnthropicErrors(_req: Request, res: Response, next: NextFunction): void {
    res.locals.errorDialect = "anthropic";
    // Anthropic's SDKs read the request id from `request-id`.
    res.setHeader("request-id", String(res.locals.requestId));
    next();
}

/** The status and body an error is answered with, in the request's API's envelope. */
export function errorResponse(res: Response, error: ApiError): {status: number, body: unknown} {
    return res.locals.errorDialect === "anthropic" ? toAnthropicError(error) : {status: error.status, body: error.toBody()};
}

/** An error after a stream began: Anthropic's `error` event, or OpenAI's data-only error event. */
export function errorEvent(res: Response, error: ApiError): string {
    if (res.locals.errorDialect === "anthropic")
        return `event: error\ndata: ${JSON.stringify(toAnthropicError(error).body)}\n\n`;
    return `data: ${JSON.stringify(error.toBody())}\n\n`;
}
