import {BadRequestError} from "../errors.js";
import type {GenerationHandlers} from "./consumeGeneration.js";

/**
 * The most a reply sent as one JSON body may hold while it is assembled. A stream sends as it goes
 * and pauses for a slow reader (streamedBody.ts); a JSON reply holds everything until its end, and
 * `n` (up to 128) × `max_tokens` × `top_logprobs` (up to 20) can ask for gigabytes. 32 MiB is far
 * beyond any reply a person or an agent reads (a 32k-token reply is about 130 KB of text; with 20
 * top logprobs a token, about 50 MB) and small beside the model.
 */
export const maxJsonReplyBytes = 32 * 1024 * 1024;

/** What a log probability costs in the reply's JSON, about: `{"token":"…","logprob":-1.2345,"bytes":[…]}`. */
export const bytesPerLogprob = 64;

/**
 * `handlers` with the reply's size counted against `budget` as it is assembled (one budget for all a
 * reply's choices); past it, the generation stops (consumeGeneration closes it) and the request
 * gets a 400 saying what to ask for instead.
 */
export function limitReplySize(handlers: GenerationHandlers, budget: {bytes: number} = {bytes: maxJsonReplyBytes}): GenerationHandlers {
    const count = (bytes: number) => {
        budget.bytes -= bytes;
        if (budget.bytes < 0)
            throw new BadRequestError(`The reply would hold more than ${maxJsonReplyBytes} bytes, more than a reply sent whole may: ask for fewer choices (n), ` +
                "fewer tokens or top log probabilities, or stream it (stream: true).", {code: "reply_too_large"});
    };
    const counted = <Args extends unknown[]>(handler: ((...args: Args) => void) | undefined, size: (...args: Args) => number) =>
        handler == null ? undefined : (...args: Args) => {
            count(size(...args));
            handler(...args);
        };
    return {
        ...handlers,
        text: counted(handlers.text, (text) => text.length)!,
        reasoning: counted(handlers.reasoning, (text) => text.length),
        toolArguments: counted(handlers.toolArguments, (_index, text) => text.length),
        logprobs: counted(handlers.logprobs, (token) => bytesPerLogprob * (1 + token.top.length)),
        promptLogprobs: counted(handlers.promptLogprobs, (_first, rest) => bytesPerLogprob * rest.reduce((sum, token) => sum + 1 + token.top.length, 1))
    };
}
