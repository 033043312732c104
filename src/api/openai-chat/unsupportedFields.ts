import {BadRequestError} from "../../errors.js";
import {rejectStreamOptionsWithoutStream, rejectUnsupported} from "../openai-shared/unsupportedFields.js";
import type {ChatCompletionRequest} from "./chatCompletionRequest.js";

/** Known chat-completions fields that ask for something chatserve does not do yet, each a 400 naming it. */
export function rejectUnsupportedChatFields(request: ChatCompletionRequest): void {
    rejectStreamOptionsWithoutStream(request);
    // OpenAI's own check: alternatives are only sent with the chosen tokens' logprobs.
    if (request.top_logprobs != null && request.top_logprobs > 0 && request.logprobs !== true)
        throw new BadRequestError("top_logprobs needs logprobs set to true.", {param: "top_logprobs", code: "invalid_value"});
    // The deprecated spelling of tools: pointing to its successor beats a second reply shape.
    if (request.functions != null && request.functions.length > 0)
        rejectUnsupported("functions", "the deprecated 'functions' field (send 'tools' instead)");
    if (request.function_call != null && request.function_call !== "none" && request.function_call !== "auto")
        rejectUnsupported("function_call", "the deprecated 'function_call' field (send 'tool_choice' instead)");
    if (request.modalities?.includes("audio") || request.audio != null)
        rejectUnsupported("modalities", "audio output");
}
