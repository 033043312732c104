import type {GenerationResult} from "../../engine/generationEvents.js";
import type {FinishReason} from "../openai-chat/chatCompletionResponse.js";
import type {CompletionLogprobs, TextCompletion} from "./completionResponse.js";
import {systemFingerprint, toFinishReason, toUsage, type ReplyIdentity} from "../openai-shared/replyFields.js";

export function textCompletion(
    identity: ReplyIdentity, choices: Array<{text: string, result: GenerationResult, logprobs?: CompletionLogprobs}>
): TextCompletion {
    return {
        ...identity,
        object: "text_completion",
        system_fingerprint: systemFingerprint,
        choices: choices.map(({text, result, logprobs}, index) => ({text, index, logprobs: logprobs ?? null, finish_reason: toFinishReason(result.finishReason)})),
        usage: toUsage(sumResults(choices.map(({result}) => result)))
    };
}

export function textCompletionChunk(
    identity: ReplyIdentity, index: number, text: string, finishReason: FinishReason | null, includeUsage: boolean, logprobs: CompletionLogprobs | null = null
): TextCompletion {
    return {
        ...identity,
        object: "text_completion",
        system_fingerprint: systemFingerprint,
        choices: [{text, index, logprobs, finish_reason: finishReason}],
        ...(includeUsage ? {usage: null} : {})
    };
}

/** With `stream_options.include_usage`, the last chunk before [DONE] carries usage (every choice's, as `sumResults` counts them) and no choices. */
export function textCompletionUsageChunk(identity: ReplyIdentity, usage: GenerationResult): TextCompletion {
    return {...identity, object: "text_completion", system_fingerprint: systemFingerprint, choices: [], usage: toUsage(usage)};
}

/**
 * Several prompts in one request: usage is their sum, as OpenAI reports it (the last one's finish
 * reason stands for them in the log). With `n` > 1, pass the other choices of a prompt through
 * `laterChoice`: a prompt counts once however many choices came of it.
 */
export function sumResults(results: readonly GenerationResult[]): GenerationResult {
    return results.reduce((total, result) => ({
        finishReason: result.finishReason,
        promptTokens: total.promptTokens + result.promptTokens,
        cachedTokens: total.cachedTokens + result.cachedTokens,
        completionTokens: total.completionTokens + result.completionTokens
    }));
}

/** A prompt's second and later choices: their completion tokens count, the prompt they share does not again. */
export function laterChoice(result: GenerationResult): GenerationResult {
    return {...result, promptTokens: 0, cachedTokens: 0};
}
