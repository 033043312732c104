import {z} from "zod";
import {seed} from "./seed.js";

/**
 * OpenAI's legacy `POST /v1/completions` body: raw prompts, no chat template. IDE autocomplete
 * (Continue and others) uses it with FIM prompts, long stop lists and small `max_tokens`.
 */
const penalty = z.number().min(-2).max(2).nullish();
const tokenId = z.number().int("a token id is a whole number").min(0, "a token id is not negative");

/** OpenAI's array forms of a prompt: texts, token ids, lists of token ids (each list one prompt). */
const promptArrays = {
    texts: z.array(z.string()),
    ids: z.array(tokenId),
    idLists: z.array(z.array(tokenId).min(1, "a prompt of token ids must not be empty"))
};

/**
 * A prompt in any of OpenAI's four forms. An array is checked against the form its first entry
 * names, not against each in turn: a union made a million token ids fail the texts form id by id
 * first, seconds of the event loop.
 */
const prompt = z.union([z.string(), z.array(z.unknown()).min(1, "prompt must not be an empty array")], {
    error: "prompt must be a string, an array of strings, an array of token ids, or an array of arrays of token ids"
}).transform((value, context): string | string[] | number[] | number[][] => {
    if (typeof value === "string")
        return value;
    const form = typeof value[0] === "number" ? promptArrays.ids : Array.isArray(value[0]) ? promptArrays.idLists : promptArrays.texts;
    const parsed = form.safeParse(value);
    if (parsed.success)
        return parsed.data;
    for (const issue of parsed.error.issues)
        context.issues.push({...issue, input: value} as never);
    return z.NEVER;
});

export const completionRequestSchema = z.object({
    model: z.string().min(1, "model is required"),
    prompt,
    best_of: z.number().int().min(1).nullish(),
    echo: z.boolean().nullish(),
    frequency_penalty: penalty,
    logit_bias: z.record(z.string(), z.number()).nullish(),
    logprobs: z.number().int().min(0).max(5).nullish(),
    /** OpenAI's default for this endpoint is 16. */
    max_tokens: z.number().int().min(1).nullish(),
    n: z.number().int().min(1).nullish(),
    presence_penalty: penalty,
    seed: seed.nullish(),
    // Autocomplete plugins send long stop lists; any length is accepted.
    stop: z.union([z.string(), z.array(z.string())]).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.object({include_usage: z.boolean().optional()}).nullish(),
    suffix: z.string().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish()
});

export type CompletionRequest = z.infer<typeof completionRequestSchema>;

export const defaultCompletionMaxTokens = 16;
