import {z} from "zod";
import {keepAliveField} from "../keepAlive.js";
import {constraintFields} from "../openai-shared/constraintFields.js";
import {otherKind} from "../otherKind.js";

/**
 * OpenAI's `POST /v1/responses` request body (the Responses API), in the order of OpenAI's API
 * reference. Item and tool kinds chatserve cannot serve are accepted here with their `type` and
 * decided on in api/openai-responses/toConversation.ts, so that agents which always send hosted tools
 * (Codex's `web_search`) are not refused by the schema.
 * `.nullish()` because clients send `null` for "not set".
 */

const inputText = z.object({type: z.literal("input_text"), text: z.string()});
const outputText = z.object({type: z.literal("output_text"), text: z.string()}).loose();
const inputImage = z.object({type: z.literal("input_image"), image_url: z.string().nullish(), file_id: z.string().nullish(), detail: z.string().nullish()});
const refusal = z.object({type: z.literal("refusal"), refusal: z.string()});
/** Any other part (input_file, input_audio…): named in a 400 when translated. */
const otherPart = z.object({type: z.string()}).loose();

export const contentPartSchema = z.union([inputText, outputText, inputImage, refusal, otherPart]);

const message = z.object({
    type: z.literal("message").optional(),
    role: z.enum(["user", "assistant", "system", "developer"], {error: "role must be one of user, assistant, system, developer"}),
    content: z.union([z.string(), z.array(contentPartSchema)], {error: "content must be a string or an array of content parts"}),
    id: z.string().nullish(),
    status: z.string().nullish()
});

const functionCall = z.object({
    type: z.literal("function_call"),
    call_id: z.string(),
    name: z.string(),
    namespace: z.string().nullish(),
    arguments: z.string(),
    id: z.string().nullish(),
    status: z.string().nullish()
});

const functionCallOutput = z.object({
    type: z.literal("function_call_output"),
    call_id: z.string(),
    output: z.union([z.string(), z.array(contentPartSchema)], {error: "output must be a string or an array of content parts"}),
    id: z.string().nullish(),
    status: z.string().nullish()
});

const reasoning = z.object({
    type: z.literal("reasoning"),
    summary: z.array(z.object({type: z.string(), text: z.string()}).loose()).nullish(),
    content: z.array(z.object({type: z.string(), text: z.string()}).loose()).nullish(),
    encrypted_content: z.string().nullish(),
    id: z.string().nullish()
});

/** Other item kinds (hosted tools' calls, item references…): decided on in translation. */
const otherItem = otherKind({message, function_call: functionCall, function_call_output: functionCallOutput, reasoning});

export const inputItemSchema = z.union([message, functionCall, functionCallOutput, reasoning, otherItem], {
    error: "an input item must be a message (role, content), function_call (call_id, name, arguments), function_call_output (call_id, output) or reasoning item"
});

const functionTool = z.object({
    type: z.literal("function"),
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, "a function name is 1 to 128 letters, digits, underscores, dots or dashes"),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish()
});

const namespaceTool = z.object({
    type: z.literal("namespace"),
    name: z.string().min(1),
    description: z.string().nullish(),
    tools: z.array(z.union([functionTool, otherKind({function: functionTool})], {error: "a namespace's function needs a name and valid parameters"}))
});

/** Hosted tools (web_search, file_search, mcp, custom…): left out of the prompt (see toChatRequest.ts). */
const otherTool = otherKind({function: functionTool, namespace: namespaceTool});

const toolChoice = z.union([
    z.enum(["none", "auto", "required"]),
    z.object({type: z.literal("function"), name: z.string(), namespace: z.string().nullish()}),
    z.object({type: z.string()}).loose()
], {error: "tool_choice must be 'none', 'auto', 'required' or {\"type\": \"function\", \"name\": ...}"});

const textFormat = z.discriminatedUnion("type", [
    z.object({type: z.literal("text")}),
    z.object({type: z.literal("json_object")}),
    z.object({
        type: z.literal("json_schema"),
        name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a schema name is 1 to 64 letters, digits, underscores or dashes"),
        description: z.string().nullish(),
        schema: z.record(z.string(), z.unknown()),
        strict: z.boolean().nullish()
    })
], {error: "text.format type must be one of text, json_object, json_schema"});

export const responsesRequestSchema = z.object({
    model: z.string().min(1, "model is required"),
    input: z.union([z.string(), z.array(inputItemSchema)], {error: "input must be a string or an array of input items"}).optional(),
    include: z.array(z.string()).nullish(),
    instructions: z.string().nullish(),
    max_output_tokens: z.number().int().min(1).nullish(),
    metadata: z.record(z.string(), z.string()).nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    previous_response_id: z.string().nullish(),
    prompt_cache_key: z.string().nullish(),
    reasoning: z.object({effort: z.string().nullish(), summary: z.string().nullish()}).loose().nullish(),
    seed: z.number().int().nullish(),
    store: z.boolean().nullish(),
    stream: z.boolean().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    text: z.object({format: textFormat.nullish(), verbosity: z.string().nullish()}).loose().nullish(),
    tool_choice: toolChoice.nullish(),
    tools: z.array(z.union([functionTool, namespaceTool, otherTool], {error: "a function tool needs a valid name (and parameters, if any, as an object)"})).max(128).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    truncation: z.enum(["auto", "disabled"]).nullish(),
    user: z.string().nullish(),
    // Accepted and ignored: they ask for nothing a local server does differently.
    background: z.boolean().nullish(),
    service_tier: z.string().nullish(),
    safety_identifier: z.string().nullish(),
    client_metadata: z.unknown().optional(),
    stream_options: z.unknown().optional(),
    // --- chatserve extensions ---
    // Ollama's: how long the model stays loaded once idle after this request (api/keepAlive.ts).
    keep_alive: keepAliveField,
    // llama-server's `grammar` and vLLM's `structured_outputs` / `guided_*`, as on chat completions
    // (openai-shared/constraintFields.ts): llama-server's /v1/responses passes every chat field through.
    ...constraintFields
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
export type InputItem = z.infer<typeof inputItemSchema>;
export type ContentPart = z.infer<typeof contentPartSchema>;
export type ResponsesTool = NonNullable<ResponsesRequest["tools"]>[number];

