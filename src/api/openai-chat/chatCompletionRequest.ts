import {z} from "zod";
import {keepAliveField} from "../keepAlive.js";
import {logitBiasField, seed, stopSequences} from "../openai-shared/requestFields.js";
import {refuseOversizedReply} from "../openai-shared/replySizeLimit.js";
import {predictionField} from "./predictionField.js";
import {constraintFields} from "../openai-shared/constraintFields.js";
import {loraField} from "../openai-shared/loraField.js";

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
        /** A reasoning model's thought, as chatserve (and llama-server) sent it. */
        reasoning_content: z.string().nullish(),
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

const functionTool = z.object({
    type: z.literal("function", {error: "only tools of type 'function' are supported"}),
    function: z.object({
        name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a function name is 1 to 64 letters, digits, underscores or dashes"),
        description: z.string().nullish(),
        /** A JSON Schema; checked against what constrained decoding enforces in json-schema/constrainedSchema.ts. */
        parameters: z.record(z.string(), z.unknown()).nullish(),
        strict: z.boolean().nullish()
    })
});

const toolChoice = z.union([
    z.enum(["none", "auto", "required"]),
    z.object({type: z.literal("function"), function: z.object({name: z.string()})})
], {error: "tool_choice must be 'none', 'auto', 'required' or {\"type\": \"function\", \"function\": {\"name\": ...}}"});

const responseFormat = z.discriminatedUnion("type", [
    z.object({type: z.literal("text")}),
    z.object({type: z.literal("json_object")}),
    z.object({
        type: z.literal("json_schema"),
        json_schema: z.object({
            name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a schema name is 1 to 64 letters, digits, underscores or dashes"),
            description: z.string().nullish(),
            schema: z.record(z.string(), z.unknown()).nullish(),
            strict: z.boolean().nullish()
        })
    })
], {error: "response_format type must be one of text, json_object, json_schema"});

export const chatCompletionRequestSchema = z.object({
    messages: z.array(chatMessageSchema).min(1, "messages must contain at least one message"),
    model: z.string().min(1, "model is required"),
    frequency_penalty: penalty,
    logit_bias: logitBiasField,
    logprobs: z.boolean().nullish(),
    max_completion_tokens: z.number().int().min(1).nullish(),
    max_tokens: z.number().int().min(1).nullish(),
    n: z.number().int().min(1).nullish(),
    presence_penalty: penalty,
    parallel_tool_calls: z.boolean().nullish(),
    // Predicted Outputs: the reply the client expects, verified as drafts (engine/speculation/).
    prediction: predictionField.nullish(),
    response_format: responseFormat.nullish(),
    seed: seed.nullish(),
    stop: stopSequences(64).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.object({include_usage: z.boolean().nullish()}).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    tools: z.array(functionTool).max(128).nullish(),
    tool_choice: toolChoice.nullish(),
    top_logprobs: z.number().int().min(0).max(20).nullish(),
    /** An end-user id, for OpenAI's abuse monitoring: unused here, but a string, as OpenAI checks. */
    user: z.string().nullish(),
    // llama-server's and vLLM's way to pass variables to the chat template, which gets them all; chatserve also reads whether to think.
    chat_template_kwargs: z.object({enable_thinking: z.boolean().nullish(), thinking: z.boolean().nullish()}).catchall(z.unknown()).nullish(),
    // OpenAI's reasoning switch: "none"/"minimal" turn thinking off; the template gets it as reasoning_effort (GPT-OSS's).
    reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high"]).nullish(),
    // Ollama's: how long the model stays loaded once idle after this request (api/keepAlive.ts).
    keep_alive: keepAliveField,
    // llama-server's `grammar`, vLLM's `structured_outputs` and `guided_*` (openai-shared/constraintFields.ts).
    ...constraintFields,
    // llama-server's per-request LoRA scales (openai-shared/loraField.ts).
    ...loraField,
    // Deprecated spellings of tools/tool_choice, still sent by older clients.
    functions: z.array(z.unknown()).nullish(),
    function_call: z.unknown().optional(),
    modalities: z.array(z.string()).nullish(),
    audio: z.unknown().optional()
}).superRefine((request, context) => refuseOversizedReply({
    stream: request.stream,
    n: request.n,
    maxTokens: request.max_completion_tokens != null ? {field: "max_completion_tokens", value: request.max_completion_tokens}
        : request.max_tokens != null ? {field: "max_tokens", value: request.max_tokens} : undefined,
    topLogprobs: request.logprobs === true ? {field: "top_logprobs", value: request.top_logprobs ?? 0} : undefined
}, context));

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ContentPart = z.infer<typeof contentPart>;
export type FunctionTool = z.infer<typeof functionTool>;
