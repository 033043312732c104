import {BadRequestError} from "../errors.js";
import type {ChatCompletionRequest} from "./chatCompletionRequest.js";

/** The 400 for a known field that asks for something chatserve does not do yet. */
export function reject(param: string, what: string): never {
    throw new BadRequestError(`${param}: ${what} is not supported by chatserve yet.`, {param, code: "unsupported_parameter"});
}

/**
 * Known OpenAI fields that ask for something chatserve does not do yet.
 * Accepting them silently would hand the client a reply it did not ask for
 * (CLIENTS.md: "unsupported parameters silently dropped"), so each one gets a 400 naming it.
 * Values that ask for the default behaviour (`n: 1`, `logprobs: false`, …) are fine.
 */
export function rejectUnsupportedFields(request: ChatCompletionRequest): void {

    if (request.n != null && request.n > 1)
        reject("n", "more than one choice per request (n > 1)");
    if (request.logprobs === true)
        reject("logprobs", "returning log probabilities");
    if (request.top_logprobs != null && request.top_logprobs > 0)
        reject("top_logprobs", "returning log probabilities");
    if (request.logit_bias != null && Object.keys(request.logit_bias).length > 0)
        reject("logit_bias", "biasing token probabilities");
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
    if (request.stream_options != null && request.stream !== true)
        throw new BadRequestError("stream_options is only allowed when stream is true.", {param: "stream_options"});
}
