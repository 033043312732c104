import {z} from "zod";
import {keepAliveField} from "../keepAlive.js";
import {textsOrTokenIds} from "../openai-shared/textsOrTokenIds.js";

/** OpenAI's `POST /v1/embeddings` body. The official SDK asks for base64 unless told otherwise. */
export const embeddingRequestSchema = z.object({
    input: textsOrTokenIds("input"),
    model: z.string().min(1, "model is required"),
    dimensions: z.number().int().min(1).nullish(),
    encoding_format: z.enum(["float", "base64"]).nullish(),
    user: z.string().nullish(),
    // --- chatserve extensions ---
    // Ollama's: how long the model stays loaded once idle after this request (api/keepAlive.ts).
    keep_alive: keepAliveField
});

export type EmbeddingRequest = z.infer<typeof embeddingRequestSchema>;

export type EmbeddingList = {
    object: "list",
    data: Array<{object: "embedding", index: number, embedding: number[] | string}>,
    model: string,
    usage: {prompt_tokens: number, total_tokens: number}
};
