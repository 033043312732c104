import type {z} from "zod";
import {bytesPerLogprob, maxJsonReplyBytes} from "../../http/replySizeGuard.js";

/** What a reply sent whole may be asked to hold, in the request's own fields. */
export type AskedReplySize = {
    stream?: boolean | null,
    n?: number | null,
    /** The field that bounds each choice's tokens, as the request spelled it (max_tokens, max_completion_tokens). */
    maxTokens?: {field: string, value: number},
    /** The top log probabilities asked for each token; undefined when no log probabilities are asked. */
    topLogprobs?: {field: string, value: number}
};

/**
 * Refuses, before any token is generated, a reply sent whole whose log probabilities alone would pass
 * maxJsonReplyBytes if every choice ran to its token limit: n × max tokens × (1 + top logprobs)
 * entries of bytesPerLogprob each, the same count the guard that measures the reply as it is
 * assembled (http/replySizeGuard.ts) makes: what is refused here is what that guard would stop once
 * the choices ran to their limit, found before the work is done. The text itself, and a reply
 * without a limit the request states, are left to that guard, since a reply may end long before its
 * limit. A stream is not bounded: it goes at its reader's pace (http/streamedBody.ts).
 */
export function refuseOversizedReply(asked: AskedReplySize, context: z.RefinementCtx): void {
    if (asked.stream === true || asked.maxTokens == null || asked.topLogprobs == null)
        return;
    const choices = asked.n ?? 1;
    const bytes = choices * asked.maxTokens.value * (1 + asked.topLogprobs.value) * bytesPerLogprob;
    if (bytes <= maxJsonReplyBytes)
        return;
    context.addIssue({
        code: "custom",
        path: [asked.maxTokens.field],
        message: `n (${choices}) × ${asked.maxTokens.field} (${asked.maxTokens.value}) × ${asked.topLogprobs.field} (${asked.topLogprobs.value}) ` +
            `asks for a reply of up to ${bytes} bytes of log probabilities, more than a reply sent whole may hold (${maxJsonReplyBytes}): ` +
            `ask for fewer choices, tokens or log probabilities, or stream it (stream: true)`
    });
}
