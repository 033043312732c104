/**
 * Every error a client can see: its status, type, code and the request field it names. None of
 * them formats a body: throw one and the error handler (or the stream's writer, once a stream has
 * started) renders it in the envelope of the request's API (http/errorEnvelope.ts; OpenAI's is
 * api/openai-shared/openAiErrors.ts, Anthropic's api/anthropic-messages/anthropicErrors.ts).
 */
export class ApiError extends Error {
    public constructor(
        public readonly status: number,
        message: string,
        public readonly type: string,
        public readonly code: string | null = null,
        public readonly param: string | null = null,
        /** Extra response headers, e.g. `Retry-After` on 503 or `WWW-Authenticate` on 401. */
        public readonly headers: Readonly<Record<string, string>> = {}
    ) {
        super(message);
        this.name = new.target.name;
    }
}

export class BadRequestError extends ApiError {
    public constructor(message: string, options: {param?: string | null, code?: string | null} = {}) {
        super(400, message, "invalid_request_error", options.code ?? null, options.param ?? null);
    }
}

/** In OpenAI's words: "This model's maximum context length is N tokens. However, <overflow>. Please reduce <remedy>." */
export class ContextLengthExceededError extends BadRequestError {
    public constructor(contextLength: number, {overflow, remedy, param}: {overflow: string, remedy: string, param: string}) {
        super(`This model's maximum context length is ${contextLength} tokens. However, ${overflow}. Please reduce ${remedy}.`,
            {param, code: "context_length_exceeded"});
    }

    /** A prompt that leaves no room for one generated token. */
    public static forPrompt(contextLength: number, promptTokens: number, param: string): ContextLengthExceededError {
        return new ContextLengthExceededError(contextLength, {overflow: `your ${param} resulted in ${promptTokens} tokens`, remedy: `the length of the ${param}`, param});
    }
}

export class AuthenticationError extends ApiError {
    public constructor(message: string) {
        super(401, message, "authentication_error", "invalid_api_key", null, {"WWW-Authenticate": 'Bearer realm="chatserve"'});
    }
}

export class NotFoundError extends ApiError {
    public constructor(message: string, code: string = "not_found", param: string | null = null) {
        super(404, message, "invalid_request_error", code, param);
    }
}

export class ModelNotFoundError extends NotFoundError {
    /** With `aliasOf`: the name is an alias (--model-alias) of a model the folder does not hold. */
    public constructor(modelId: string, aliasOf?: string) {
        // An id of any length fits under the body limit: the message quotes the start of it.
        const shown = modelId.length > 200 ? `${modelId.slice(0, 200)}…` : modelId;
        const what = aliasOf == null ? "does not exist" : `is an alias of '${aliasOf}', which the models folder does not hold`;
        super(`The model '${shown}' ${what}. GET /v1/models lists the models this server has.`, "model_not_found", "model");
    }
}

/** A path chatserve serves, asked with a method it does not answer there: `Allow` lists the ones it does. */
export class MethodNotAllowedError extends ApiError {
    public constructor(method: string, path: string, allowed: readonly string[]) {
        super(405, `${method} is not allowed on ${path}: use ${allowed.join(" or ")}.`, "invalid_request_error", "method_not_allowed", null,
            {Allow: allowed.join(", ")});
    }
}

export class PayloadTooLargeError extends ApiError {
    public constructor(limit: string) {
        super(413, `Request body is larger than the ${limit} limit.`, "invalid_request_error", "payload_too_large");
    }
}

export class UnsupportedMediaTypeError extends ApiError {
    public constructor(contentType: string | undefined) {
        super(415, `Request body must be JSON (Content-Type: application/json), got ${contentType ?? "no Content-Type"}.`,
            "invalid_request_error", "unsupported_media_type");
    }
}

/** The model file exists but cannot be served (corrupt, unsupported, failed to load): retrying will not help, so a 4xx. */
export class ModelUnavailableError extends ApiError {
    public constructor(modelId: string, reason: string) {
        super(400, `The model '${modelId}' is unavailable: ${reason}`, "invalid_request_error", "model_unavailable", "model");
    }
}

export class ServerBusyError extends ApiError {
    public constructor(retryAfterSeconds: number) {
        super(503, "The server is busy: every sequence is in use and the queue is full. Retry shortly.",
            "server_error", "server_busy", null, {"Retry-After": String(retryAfterSeconds)});
    }
}

/** A model unloaded while requests waited for it (its file changed or left the folder): a retry finds what is there now. */
export class ModelUnloadedError extends ApiError {
    public constructor(modelId: string, why: string) {
        super(503, `The model '${modelId}' was unloaded: ${why}. Retry to use what the models folder holds now.`,
            "server_error", "model_unloaded", "model", {"Retry-After": "1"});
    }
}

/**
 * The memory budget has no room for a model, and the models holding it stayed busy for as long as
 * the request could wait: a retry a little later may find one of them idle (and unload it).
 */
export class InsufficientMemoryError extends ApiError {
    public constructor(message: string, retryAfterSeconds: number) {
        super(503, message, "server_error", "insufficient_memory", "model", {"Retry-After": String(retryAfterSeconds)});
    }
}

/** A model that would not fit the memory budget even alone: no retry helps, a smaller context or a larger budget would. */
export class ModelTooLargeError extends BadRequestError {
    public constructor(message: string) {
        super(message, {param: "model", code: "model_too_large"});
    }
}

/**
 * Shutdown (or its drain) has begun. `Retry-After` lets the SDKs' own retries, and a balancer that
 * honours it, try again once another replica, or this one restarted, can answer.
 */
export class ServiceShuttingDownError extends ApiError {
    public constructor(message = "The server is shutting down.") {
        super(503, message, "server_error", "shutting_down", null, {"Retry-After": "5"});
    }
}

/** Why a request's work stopped when its client went away: not an answer (nobody is there), not a bug. */
export class ClientGoneError extends Error {
    public constructor() {
        super("client disconnected");
    }
}

/** For real bugs only: the client gets a generic message, the log gets the details. */
export class InternalServerError extends ApiError {
    public constructor() {
        super(500, "The server had an internal error while processing the request.", "server_error", "internal_error");
    }
}

/** Maps anything thrown to an ApiError; unknown errors become a generic 500. */
export function toApiError(error: unknown): ApiError {
    return error instanceof ApiError ? error : new InternalServerError();
}
