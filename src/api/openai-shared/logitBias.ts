import {z} from "zod";
import {BadRequestError} from "../../errors.js";

/** OpenAI's limit on `logit_bias` entries. */
export const maxLogitBiasEntries = 300;

/**
 * OpenAI's `logit_bias`: token ids (as JSON object keys) → a bias from -100 to 100, added to the
 * token's logit before sampling. -100 bans the token outright (-Infinity, so not even a flat
 * distribution can pick it); 100 all but forces it.
 */
export const logitBiasField = z.record(
    z.string().regex(/^\d{1,9}$/, "logit_bias keys are token ids (non-negative integers written as strings)"),
    z.number().min(-100, "a logit_bias value is from -100 to 100").max(100, "a logit_bias value is from -100 to 100")
).refine((bias) => Object.keys(bias).length <= maxLogitBiasEntries, `logit_bias has at most ${maxLogitBiasEntries} entries`).nullish();

/** The bias the engine adds, checked against the model's vocabulary when it is known. Undefined when empty. */
export function toLogitBias(bias: Record<string, number> | null | undefined, vocabularySize?: number): Map<number, number> | undefined {
    const entries = Object.entries(bias ?? {}).filter(([, value]) => value !== 0);
    if (entries.length === 0)
        return undefined;
    const map = new Map<number, number>();
    for (const [key, value] of entries) {
        const token = Number(key);
        if (vocabularySize != null && token >= vocabularySize)
            throw new BadRequestError(`Invalid 'logit_bias': token id ${token} is not in this model's vocabulary (0 to ${vocabularySize - 1}).`,
                {param: "logit_bias", code: "invalid_value"});
        map.set(token, value <= -100 ? -Infinity : value);
    }
    return map;
}
