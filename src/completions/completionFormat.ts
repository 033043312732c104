import {systemFingerprint, toFinishReason, toUsage, type ReplyIdentity} from "../chat/chatCompletionFormat.js";
import type {GenerationResult} from "../engine/types.js";
import type {FinishReason, Usage} from "../protocol/chatCompletionResponse.js";
import type {TextCompletion} from "../protocol/completionResponse.js";

export function textCompletion(identity: ReplyIdentity, choices: Array<{text: string, result: GenerationResult}>): TextCompletion {
    return {
        ...identity,
        object: "text_completion",
        system_fingerprint: systemFingerprint,
        choices: choices.map(({text, result}, index) => ({text, index, logprobs: null, finish_reason: toFinishReason(result.finishReason)})),
        usage: sumUsage(choices.map(({result}) => result))
    };
}

export function textCompletionChunk(identity: ReplyIdentity, index: number, text: string, finishReason: FinishReason | null, includeUsage: boolean): TextCompletion {
    return {
        ...identity,
        object: "text_completion",
        system_fingerprint: systemFingerprint,
        choices: [{text, index, logprobs: null, finish_reason: finishReason}],
        ...(includeUsage ? {usage: null} : {})
    };
}

export function textCompletionUsageChunk(identity: ReplyIdentity, results: GenerationResult[]): TextCompletion {
    return {...identity, object: "text_completion", system_fingerprint: systemFingerprint, choices: [], usage: sumUsage(results)};
}

/** Several prompts in one request: usage is their sum, as OpenAI reports it. */
function sumUsage(results: GenerationResult[]): Usage {
    return results.map(toUsage).reduce((sum, usage) => ({
        prompt_tokens: sum.prompt_tokens + usage.prompt_tokens,
        completion_tokens: sum.completion_tokens + usage.completion_tokens,
        total_tokens: sum.total_tokens + usage.total_tokens,
        prompt_tokens_details: {cached_tokens: sum.prompt_tokens_details.cached_tokens + usage.prompt_tokens_details.cached_tokens}
    }));
}
