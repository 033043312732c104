import {z} from "zod";

/**
 * llama-server's per-request LoRA scales on the OpenAI-shaped bodies (chat and legacy completions):
 * `lora: [{id, scale}]`, `id` the adapter's index in the model's list (GET /v1/models'
 * `lora_adapters`, GET /lora-adapters). A chatserve extension: OpenAI has none. What the list means
 * (the adapters it does not name are off) is the engine's, engine/loraScales.ts; whether an id
 * exists depends on the model, so that 400 comes once the model is known.
 *
 * The scale is bounded as chatserve.json's is (-8 to 8): llama-server takes any number, but far
 * beyond the adapter's trained 1 its delta swamps the weights, and overflowing activations would
 * sample from NaN logits.
 */
export const loraField = {
    lora: z.array(z.object({
        id: z.number().int().min(0),
        scale: z.number().min(-8).max(8)
    }), "lora must be a list of {id, scale} objects (llama-server's per-request LoRA scales)").max(64).nullish()
};
