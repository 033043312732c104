import {z} from "zod";
import {keepAliveField} from "../keepAlive.js";
import {logitBiasField, seed, stopSequences} from "../openai-shared/requestFields.js";
import {refuseOversizedReply} from "../openai-shared/replySizeLimit.js";
import {textsOrTokenIds} from "../openai-shared/textsOrTokenIds.js";
import {constraintFields} from "../openai-shared/constraintFields.js";
import {loraField} from "../openai-shared/loraField.js";

/**
 * OpenAI's legacy `POST /v1/completions` body: raw prompts, no chat template. IDE autocomplete
 * (Continue and others) uses it with FIM prompts, long stop lists and small `max_tokens`.
 */
const penalty = z.number().min(-2).max(2).nullish();
export const completionRequestSchema = z.object({
    model: z.string().min(1, "model is required"),
    prompt: textsOrTokenIds("prompt"),
    best_of: z.number().int().min(1).nullish(),
    echo: z.boolean().nullish(),
    frequency_penalty: penalty,
    logit_bias: logitBiasField,
    logprobs: z.number().int().min(0).max(5).nullish(),
    /** OpenAI's default for this endpoint is 16. */
    max_tokens: z.number().int().min(1).nullish(),
    n: z.number().int().min(1).nullish(),
    presence_penalty: penalty,
    seed: seed.nullish(),
    // Autocomplete plugins send long stop lists.
    stop: stopSequences(1024).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.object({include_usage: z.boolean().nullish()}).nullish(),
    suffix: z.string().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    /** An end-user id, for OpenAI's abuse monitoring: unused here, but a string, as OpenAI checks. */
    user: z.string().nullish(),
    // --- chatserve extensions ---
    // Ollama's: how long the model stays loaded once idle after this request (api/keepAlive.ts).
    keep_alive: keepAliveField,
    // llama-server's `grammar`, vLLM's `structured_outputs` and `guided_*` (openai-shared/constraintFields.ts).
    ...constraintFields,
    // llama-server's per-request LoRA scales (openai-shared/loraField.ts).
    ...loraField
}).superRefine((request, context) => refuseOversizedReply({
    stream: request.stream,
    n: request.n,
    maxTokens: {field: "max_tokens", value: request.max_tokens ?? defaultCompletionMaxTokens},
    topLogprobs: request.logprobs != null ? {field: "logprobs", value: request.logprobs} : undefined
}, context));

export type CompletionRequest = z.infer<typeof completionRequestSchema>;

export const defaultCompletionMaxTokens = 16;
