import type {GenerationOptions} from "../engine/types.js";
import {ContextLengthExceededError} from "../errors.js";
import type {ChatCompletionRequest} from "../protocol/chatCompletionRequest.js";

/**
 * OpenAI request fields → generation options, with OpenAI's defaults filled in here and only here
 * (node-llama-cpp's own temperature default is 0; OpenAI's is 1).
 *
 * Decides before anything is sent whether the prompt plus the requested completion fits the
 * context; without `max_tokens` the completion may use whatever room the prompt leaves.
 */
export function toGenerationOptions(request: ChatCompletionRequest, promptTokens: number, contextLength: number): GenerationOptions {
    // Zed and newer SDKs send max_completion_tokens, the successor of max_tokens.
    const requested = request.max_completion_tokens ?? request.max_tokens ?? null;
    const room = contextLength - promptTokens;
    if (requested != null && requested > room)
        throw new ContextLengthExceededError(
            `This model's maximum context length is ${contextLength} tokens. However, you requested ${promptTokens + requested} tokens ` +
            `(${promptTokens} in the messages, ${requested} in the completion). Please reduce the length of the messages or completion.`);
    if (room < 1)
        throw new ContextLengthExceededError(
            `This model's maximum context length is ${contextLength} tokens. However, your messages resulted in ${promptTokens} tokens. ` +
            "Please reduce the length of the messages.");

    return {
        maxTokens: requested ?? room,
        stop: typeof request.stop === "string" ? [request.stop] : request.stop ?? [],
        sampling: {
            temperature: request.temperature ?? 1,
            topP: request.top_p ?? 1,
            seed: request.seed ?? undefined,
            presencePenalty: request.presence_penalty ?? 0,
            frequencyPenalty: request.frequency_penalty ?? 0
        }
    };
}
