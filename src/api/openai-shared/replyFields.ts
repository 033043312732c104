import {randomBytes} from "node:crypto";
import type {GenerationResult} from "../../engine/generationEvents.js";

/** The fields every reply has, a chat completion's or a text completion's: identity, fingerprint, usage, finish reason. */

export type FinishReason = "stop" | "length" | "tool_calls";

export type Usage = {
    prompt_tokens: number,
    completion_tokens: number,
    total_tokens: number,
    prompt_tokens_details: {cached_tokens: number},
    /**
     * For a reasoning model: how many of the completion tokens were its thought. With a prediction:
     * how many of its tokens the reply reproduced, and how many it did not (OpenAI's Predicted Outputs).
     */
    completion_tokens_details?: {reasoning_tokens: number, accepted_prediction_tokens?: number, rejected_prediction_tokens?: number}
};

/** The identity shared by a reply and all its chunks (OpenAI stamps one `id` and one `created` on every chunk). */
export type ReplyIdentity = {id: string, created: number, model: string};

/** Identifies the build that produced a reply, as OpenAI's `system_fingerprint` does. */
export const systemFingerprint = "chatserve";

export function newReplyIdentity(model: string, prefix = "chatcmpl"): ReplyIdentity {
    return {id: `${prefix}-${randomBytes(12).toString("hex")}`, created: Math.floor(Date.now() / 1000), model};
}

export function toUsage(result: GenerationResult): Usage {
    return {
        prompt_tokens: result.promptTokens,
        completion_tokens: result.completionTokens,
        total_tokens: result.promptTokens + result.completionTokens,
        prompt_tokens_details: {cached_tokens: result.cachedTokens},
        ...completionDetails(result)
    };
}

function completionDetails({reasoningTokens, prediction}: GenerationResult): Pick<Usage, "completion_tokens_details"> {
    if (reasoningTokens == null && prediction == null)
        return {};
    return {completion_tokens_details: {
        reasoning_tokens: reasoningTokens ?? 0,
        ...(prediction == null ? {} : {accepted_prediction_tokens: prediction.accepted, rejected_prediction_tokens: prediction.rejected})
    }};
}

/** The one place engine finish reasons become OpenAI's (an aborted reply has no one to receive it). */
export function toFinishReason(reason: GenerationResult["finishReason"]): FinishReason {
    switch (reason) {
        case "length":
            return "length";
        case "toolCalls":
            return "tool_calls";
        default:
            return "stop";
    }
}
