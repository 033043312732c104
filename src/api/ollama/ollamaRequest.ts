import {z} from "zod";
import {keepAliveField} from "../keepAlive.js";

/**
 * Ollama's request bodies (its docs/api.md and api/types.go). Fields Ollama has and chatserve does
 * not use (`num_gpu`, `num_thread`, `truncate`, `context` …) are accepted and dropped, as Ollama
 * itself ignores options it does not know: clients send them unasked.
 */

/** `options`: llama.cpp's sampling and runner settings, under Ollama's names. */
export const ollamaOptionsSchema = z.object({
    temperature: z.number().min(0).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    top_k: z.number().int().min(0).nullish(),
    min_p: z.number().min(0).max(1).nullish(),
    /** -1 (no limit) and -2 (fill the context) are Ollama's; both mean the room the prompt leaves here. */
    num_predict: z.number().int().nullish(),
    num_ctx: z.number().int().min(1).nullish(),
    stop: z.array(z.string()).max(1024).nullish(),
    seed: z.number().int().nullish(),
    repeat_penalty: z.number().min(0).nullish(),
    presence_penalty: z.number().min(-2).max(2).nullish(),
    frequency_penalty: z.number().min(-2).max(2).nullish()
});

export type OllamaOptions = z.infer<typeof ollamaOptionsSchema>;

/** `format`: "json" (any JSON value), a JSON schema, or "" (none, as Go's zero value). */
const format = z.union([z.literal("json"), z.literal(""), z.record(z.string(), z.unknown())],
    {error: "format must be \"json\" or a JSON schema object"}).nullish();

/** `think`: on or off, or a reasoning effort (gpt-oss), which here means on. */
const think = z.union([z.boolean(), z.enum(["low", "medium", "high"])], {error: "think must be true, false, \"low\", \"medium\" or \"high\""}).nullish();

/** Images are base64 strings without a `data:` prefix (the clients encode files and buffers). */
const images = z.array(z.string()).nullish();

const toolCall = z.object({
    id: z.string().nullish(),
    function: z.object({
        index: z.number().int().nullish(),
        name: z.string().min(1),
        // An object in Ollama's API; a JSON string is tolerated (clients that echo OpenAI's shape).
        arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).nullish()
    })
});

const message = z.object({
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.string().nullish(),
    thinking: z.string().nullish(),
    images,
    tool_calls: z.array(toolCall).nullish(),
    tool_name: z.string().nullish(),
    tool_call_id: z.string().nullish()
});

export type OllamaMessage = z.infer<typeof message>;

const tool = z.object({
    type: z.string().nullish(),
    function: z.object({
        name: z.string().min(1),
        description: z.string().nullish(),
        parameters: z.record(z.string(), z.unknown()).nullish()
    })
});

const common = {
    model: z.string().min(1, "model is required"),
    stream: z.boolean().nullish(),
    format,
    options: ollamaOptionsSchema.nullish(),
    keep_alive: keepAliveField,
    think
};

export const chatRequestSchema = z.object({
    ...common,
    messages: z.array(message).nullish(),
    tools: z.array(tool).nullish()
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;

export const generateRequestSchema = z.object({
    ...common,
    prompt: z.string().nullish(),
    suffix: z.string().nullish(),
    system: z.string().nullish(),
    raw: z.boolean().nullish(),
    images
});

export type GenerateRequest = z.infer<typeof generateRequestSchema>;

/** `POST /api/embed`: one text or a list; `POST /api/embeddings` (the older one): `prompt`, one text. */
export const embedRequestSchema = z.object({
    model: z.string().min(1, "model is required"),
    input: z.union([z.string(), z.array(z.string()).min(1, "input is an empty list: send at least one text")], {error: "input must be a string or a list of strings"}),
    /** Ollama cuts an input longer than the context when this is true (its default); chatserve never cuts one: too long is a 400. */
    truncate: z.boolean().nullish(),
    dimensions: z.number().int().min(1).nullish(),
    keep_alive: keepAliveField,
    options: ollamaOptionsSchema.nullish()
});

export type EmbedRequest = z.infer<typeof embedRequestSchema>;

export const embeddingsRequestSchema = z.object({
    model: z.string().min(1, "model is required"),
    prompt: z.string(),
    keep_alive: keepAliveField,
    options: ollamaOptionsSchema.nullish()
});

/** `show`, `pull` and `delete` name their model as `model`, or as `name` (older clients). */
export const namedModelSchema = z.object({
    model: z.string().min(1).nullish(),
    name: z.string().min(1).nullish(),
    stream: z.boolean().nullish()
}).refine((body) => body.model != null || body.name != null, {message: "model is required", path: ["model"]});

/** The model a `show`, `pull` or `delete` body names. */
export function modelNamed(body: z.infer<typeof namedModelSchema>): string {
    return (body.model ?? body.name)!;
}
