import {z} from "zod";

/**
 * OpenAI's `POST /v1/chat/completions` request body, spec fields in the order of OpenAI's API reference.
 * Unknown fields are stripped (zod's default), so clients that send extras keep working;
 * known fields asking for something chatserve does not do are rejected in `unsupportedFields.ts`.
 * `.nullish()` because real clients (LangChain, Open WebUI) send `null` for "not set".
 */

/** A content part; kinds other than text are rejected with a clear message when translated. */
const contentPart = z.looseObject({
    type: z.string(),
    text: z.string().optional()
});

const content = z.union([z.string(), z.array(contentPart)], {
    error: "content must be a string or an array of content parts"
});

const toolCall = z.object({
    id: z.string(),
    type: z.literal("function"),
    function: z.object({name: z.string(), arguments: z.string()})
});

export const chatMessageSchema = z.discriminatedUnion("role", [
    z.object({role: z.literal("system"), content, name: z.string().optional()}),
    z.object({role: z.literal("developer"), content, name: z.string().optional()}),
    z.object({role: z.literal("user"), content, name: z.string().optional()}),
    z.object({
        role: z.literal("assistant"),
        content: content.nullish(),
        name: z.string().optional(),
        refusal: z.string().nullish(),
        tool_calls: z.array(toolCall).nullish()
    }),
    z.object({role: z.literal("tool"), content, tool_call_id: z.string()})
], {
    error: (issue) => issue.code === "invalid_union"
        ? "role must be one of system, developer, user, assistant, tool"
        : undefined
});

const penalty = z.number().min(-2).max(2).nullish();

export const chatCompletionRequestSchema = z.object({
    messages: z.array(chatMessageSchema).min(1, "messages must contain at least one message"),
    model: z.string().min(1, "model is required"),
    frequency_penalty: penalty,
    logit_bias: z.record(z.string(), z.number()).nullish(),
    logprobs: z.boolean().nullish(),
    max_completion_tokens: z.number().int().min(1).nullish(),
    max_tokens: z.number().int().min(1).nullish(),
    n: z.number().int().min(1).nullish(),
    presence_penalty: penalty,
    response_format: z.looseObject({type: z.string()}).nullish(),
    seed: z.number().int().nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(64)]).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.object({include_usage: z.boolean().optional()}).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    tools: z.array(z.unknown()).nullish(),
    tool_choice: z.unknown().optional(),
    top_logprobs: z.number().int().min(0).max(20).nullish(),
    // Deprecated spellings of tools/tool_choice, still sent by older clients.
    functions: z.array(z.unknown()).nullish(),
    function_call: z.unknown().optional(),
    modalities: z.array(z.string()).nullish(),
    audio: z.unknown().optional()
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ContentPart = z.infer<typeof contentPart>;
