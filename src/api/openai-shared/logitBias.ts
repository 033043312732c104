import {z} from "zod";

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
