import type {NextFunction, Request, Response} from "express";
import type {ApiError} from "../errors.js";

/**
 * How one API words an error. Each API folder provides its own (OpenAI's in
 * api/openai-shared/openAiErrors.ts, Anthropic's in api/anthropic-messages/anthropicErrors.ts);
 * this layer only receives it: app.ts marks every request with its API's envelope before anything
 * can refuse it, and whatever answers with an error (errorHandler.ts, a stream's `fail`,
 * clientAbort.ts at the server's stop) renders the error through the request's envelope.
 */
export type ErrorEnvelope = {
    /** The error as the whole response: its status (Anthropic answers a 503 as 529) and body. */
    response(error: ApiError): {status: number, body: unknown},
    /** The error once a stream has begun: the event that carries it, and its name where the API names its events. */
    streamEvent(error: ApiError): {name?: string, data: unknown}
};

/** Marks the requests it is mounted for with an API's envelope; a mount on a narrower path, later, overrides it. */
export function useErrorEnvelope(envelope: ErrorEnvelope) {
    return (_req: Request, res: Response, next: NextFunction): void => {
        res.locals.errorEnvelope = envelope;
        next();
    };
}

/** The envelope the request's API answers errors in. */
export function envelopeOf(res: Response): ErrorEnvelope {
    const envelope = res.locals.errorEnvelope as ErrorEnvelope | undefined;
    // A bug of the app's assembly, not of the request: createApp mounts a default before anything can refuse one.
    if (envelope == null)
        throw new Error("No error envelope was set for this request: createApp mounts one before any other middleware.");
    return envelope;
}
