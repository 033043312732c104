import {z} from "zod";
import {stopListTooLong} from "../stopSequenceLimit.js";

/** Request fields OpenAI's chat and legacy completions share, with the bounds chatserve puts on them. */

/**
 * OpenAI's `seed` is any 64-bit integer, and clients send ones past 2^53 (Python's `2**63 - 1`).
 * JSON parses those to the nearest double, which zod's `int()` refuses as unsafe; every such double
 * is a whole number, so any whole number is taken (generationSettings.ts folds it into llama.cpp's 32 bits).
 */
export const seed = z.number().refine(Number.isInteger, "seed must be an integer");

/**
 * `stop`: a string or a list of at most `max` strings, of at most maxStopCharacters together.
 * Every sequence is looked for after every token, so the list is bounded: 200,000 of them held
 * the event loop for every client.
 */
export function stopSequences(max: number) {
    return z.union([z.string(), z.array(z.unknown())], {error: "stop must be a string or an array of strings"})
        .transform((stop, context): string | string[] => {
            // The length first, then entry by entry up to the first at fault: checking a million
            // entries against a union first built an issue for each.
            const fail = (message: string, path: number[] = []) => {
                context.issues.push({code: "custom", input: stop, message, path});
                return z.NEVER;
            };
            if (stop.length > max && typeof stop !== "string")
                return fail(`stop may hold at most ${max} sequences`);
            const index = typeof stop === "string" ? -1 : stop.findIndex((sequence) => typeof sequence !== "string");
            if (index >= 0)
                return fail("a stop sequence is a string", [index]);
            const tooLong = stopListTooLong("stop", typeof stop === "string" ? [stop] : stop as string[]);
            return tooLong == null ? stop as string | string[] : fail(tooLong);
        });
}

/** OpenAI's limit on `logit_bias` entries. */
const maxLogitBiasEntries = 300;

/**
 * OpenAI's `logit_bias`: token ids (as JSON object keys) → a bias from -100 to 100, added to the
 * token's logit before sampling. -100 bans the token outright (-Infinity, so not even a flat
 * distribution can pick it); 100 all but forces it.
 */
export const logitBiasField = z.record(
    z.string().regex(/^\d{1,9}$/, "logit_bias keys are token ids (non-negative integers written as strings)"),
    z.number().min(-100, "a logit_bias value is from -100 to 100").max(100, "a logit_bias value is from -100 to 100")
).refine((bias) => Object.keys(bias).length <= maxLogitBiasEntries, `logit_bias has at most ${maxLogitBiasEntries} entries`).nullish();
