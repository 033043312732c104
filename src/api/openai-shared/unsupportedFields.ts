import {BadRequestError} from "../../errors.js";
import type {ChatCompletionRequest} from "../openai-chat/chatCompletionRequest.js";
import type {CompletionRequest} from "../openai-completions/completionRequest.js";

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
    // OpenAI's own check: alternatives are only sent with the chosen tokens' logprobs.
    if (request.top_logprobs != null && request.top_logprobs > 0 && request.logprobs !== true)
        throw new BadRequestError("top_logprobs needs logprobs set to true.", {param: "top_logprobs", code: "invalid_value"});
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
    if (request.best_of != null && request.best_of > 1)
        reject("best_of", "best_of > 1");
    if (request.echo === true && request.suffix != null)
        throw new BadRequestError("echo cannot be combined with suffix.", {param: "echo", code: "invalid_value"});
}

function rejectUnsupportedCommonFields(request: Pick<ChatCompletionRequest & CompletionRequest, "stream" | "stream_options">): void {    if (request.stream_options != null && request.stream !== true)
        throw new BadRequestError("stream_options is only allowed when stream is true.", {param: "stream_options", code: "invalid_value"});
}
