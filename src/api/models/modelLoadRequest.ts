import {z} from "zod";
import {keepAliveField} from "../keepAlive.js";

/**
 * `POST /v1/models/{id}/load`'s optional body (chatserve's own endpoint, as Ollama's empty
 * generate request is there to warm a model): how long it stays loaded once idle.
 */
export const modelLoadRequestSchema = z.object({
    keep_alive: keepAliveField
});

export type ModelLoadRequest = z.infer<typeof modelLoadRequestSchema>;
