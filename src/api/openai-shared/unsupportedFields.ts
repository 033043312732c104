import {BadRequestError} from "../../errors.js";

/**
 * The 400 for a known field that asks for something chatserve does not do yet. Accepting such
 * fields silently would hand the client a reply it did not ask for (CLIENTS.md: "unsupported
 * parameters silently dropped"), so each one gets a 400 naming it. Values that ask for the default
 * behaviour (`n: 1`, `logprobs: false`, …) are fine. Each API lists its own fields (openai-chat's
 * and openai-completions' unsupportedFields.ts).
 */
export function rejectUnsupported(param: string, what: string): never {
    throw new BadRequestError(`${param}: ${what} is not supported by chatserve yet.`, {param, code: "unsupported_parameter"});
}

/** OpenAI's rule for chat and legacy completions alike: stream_options only with a stream. */
export function rejectStreamOptionsWithoutStream(request: {stream?: boolean | null, stream_options?: unknown}): void {
    if (request.stream_options != null && request.stream !== true)
        throw new BadRequestError("stream_options is only allowed when stream is true.", {param: "stream_options", code: "invalid_value"});
}
