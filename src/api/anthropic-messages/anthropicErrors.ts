import type {NextFunction, Request, Response} from "express";
import type {ApiError} from "../../errors.js";
import {useErrorEnvelope, type ErrorEnvelope} from "../../http/errorEnvelope.js";

/** Anthropic's error envelope: `{"type": "error", "error": {"type", "message"}}`. */
export type AnthropicErrorBody = {type: "error", error: {type: string, message: string}};

/**
 * An ApiError as Anthropic's API answers it: its error types by status, and a full queue as 529
 * `overloaded_error`, which Anthropic's SDKs and Claude Code retry. A server shutting down stays a
 * 503: a balancer in front of replicas resends a 503 to another one (nginx's `proxy_next_upstream
 * http_503`; it has no way to name 529), and the SDKs retry any 5xx alike.
 * chatserve's own code and param are kept in the message, where Anthropic's envelope has no field.
 */
export function toAnthropicError(error: ApiError): {status: number, body: AnthropicErrorBody} {
    const status = error.status === 503 && error.code !== "shutting_down" ? 529 : error.status;
    const detail = error.param != null && !error.message.includes(error.param) ? ` (${error.param})` : "";
    return {status, body: {type: "error", error: {type: anthropicType(status), message: error.message + detail}}};
}

/** Mid-stream, Anthropic's error is an `error` event carrying the same body. */
export const anthropicErrors: ErrorEnvelope = {
    response: toAnthropicError,
    streamEvent: (error) => ({name: "error", data: toAnthropicError(error).body})
};

/**
 * Marks a Messages API request: its errors in Anthropic's envelope, whose clients parse
 * `{"type": "error", "error": {…}}`. Mounted before the Host check, authentication and body
 * parsing (app.ts), so that a bad key or malformed JSON is answered in it too.
 */
export function useAnthropicErrors(req: Request, res: Response, next: NextFunction): void {
    // Anthropic's SDKs read the request id from `request-id`.
    res.setHeader("request-id", String(res.locals.requestId));
    markAnthropic(req, res, next);
}

const markAnthropic = useErrorEnvelope(anthropicErrors);

function anthropicType(status: number): string {
    switch (status) {
        case 400:
        case 405:
        case 408:
        case 415:
        case 422:
        case 431:
            return "invalid_request_error";
        case 401:
            return "authentication_error";
        case 403:
            return "permission_error";
        case 404:
            return "not_found_error";
        case 413:
            return "request_too_large";
        case 429:
            return "rate_limit_error";
        case 529:
            return "overloaded_error";
        default:
            return status < 500 ? "invalid_request_error" : "api_error";
    }
}
