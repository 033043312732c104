import {BadRequestError} from "../errors.js";
import type {ChatCompletionRequest} from "./chatCompletionRequest.js";
import type {CompletionRequest} from "./completionRequest.js";

/** The 400 for a known field that asks for something chatserve does not do yet. */
function reject(param: string, what: string): never {
    throw new BadRequestError(`${param}: ${what} is not supported by chatserve yet.`, {param, code: "unsupported_parameter"});
}

/**
 * Known OpenAI fields that ask for something chatserve does not do yet.
 * Accepting them silently would hand the client a reply it did not ask for
 * (CLIENTS.md: "unsupported parameters silently dropped"), so each one gets a 400 naming it.
 * Values that ask for the default behaviour (`n: 1`, `logprobs: false`, …) are fine.
 */
export function rejectUnsupportedChatFields(request: ChatCompletionRequest): void {
    rejectUnsupportedCommonFields(request);
    if (request.n != null && request.n > 1)
        reject("n", "more than one choice per request (n > 1)");
    if (request.logprobs === true)
        reject("logprobs", "returning log probabilities");
    if (request.top_logprobs != null && request.top_logprobs > 0)
        reject("top_logprobs", "returning log probabilities");
    // The deprecated spelling of tools: pointing to its successor beats a second reply shape.
    if (request.functions != null && request.functions.length > 0)
        reject("functions", "the deprecated 'functions' field (send 'tools' instead)");
    if (request.function_call != null && request.function_call !== "none" && request.function_call !== "auto")
        reject("function_call", "the deprecated 'function_call' field (send 'tool_choice' instead)");
    if (request.modalities?.includes("audio") || request.audio != null)
        reject("modalities", "audio output");
    for (const variable of Object.keys(request.chat_template_kwargs ?? {}))
        if (variable !== "enable_thinking" && variable !== "thinking")
            reject(`chat_template_kwargs.${variable}`, "passing that variable to the chat template");
}

/** The same for legacy completions, whose fields differ a little. */
export function rejectUnsupportedCompletionFields(request: CompletionRequest): void {
    rejectUnsupportedCommonFields(request);
    if (request.n != null && request.n > 1)
        reject("n", "more than one choice per prompt (n > 1)");
    if (request.best_of != null && request.best_of > 1)
        reject("best_of", "best_of > 1");
    // OpenAI answers even 0 with the sampled tokens' log probabilities, which chatserve does not return.
    if (request.logprobs != null)
        reject("logprobs", "returning log probabilities");
    if (request.echo === true && request.suffix != null)
        throw new BadRequestError("echo cannot be combined with suffix.", {param: "echo", code: "invalid_value"});
}

function rejectUnsupportedCommonFields(request: Pick<ChatCompletionRequest & CompletionRequest, "logit_bias" | "stream" | "stream_options">): void {
    if (request.logit_bias != null && Object.keys(request.logit_bias).length > 0)
        reject("logit_bias", "biasing token probabilities");
    if (request.stream_options != null && request.stream !== true)
        throw new BadRequestError("stream_options is only allowed when stream is true.", {param: "stream_options", code: "invalid_value"});
}
