import {z} from "zod";

/** OpenAI's limit on inputs per request (strings, or token-id arrays). */
const maxInputs = 2048;
const tokenIds = z.array(z.number().int().min(0)).min(1, "a token array must not be empty");

/** OpenAI's `POST /v1/embeddings` body. The official SDK asks for base64 unless told otherwise. */
export const embeddingRequestSchema = z.object({
    input: z.union([
        z.string(),
        z.array(z.string()).min(1, "input must not be an empty array"),
        tokenIds,
        z.array(tokenIds).min(1, "input must not be an empty array")
    ], {error: "input must be a string, an array of strings, an array of token ids, or an array of such arrays"})
        .refine((input) => !Array.isArray(input) || typeof input[0] === "number" || input.length <= maxInputs,
            `input may hold at most ${maxInputs} entries`),
    model: z.string().min(1, "model is required"),
    dimensions: z.number().int().min(1).nullish(),
    encoding_format: z.enum(["float", "base64"]).nullish(),
    user: z.string().nullish()
});

export type EmbeddingRequest = z.infer<typeof embeddingRequestSchema>;

export type EmbeddingList = {
    object: "list",
    data: Array<{object: "embedding", index: number, embedding: number[] | string}>,
    model: string,
    usage: {prompt_tokens: number, total_tokens: number}
};
