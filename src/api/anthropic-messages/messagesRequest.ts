import {z} from "zod";
import {keepAliveField} from "../keepAlive.js";
import {otherKind} from "../otherKind.js";
import {stopListTooLong} from "../stopSequenceLimit.js";

/**
 * Anthropic's `POST /v1/messages` request body (the Messages API), in the order of Anthropic's API
 * reference. Block and tool kinds chatserve cannot serve are accepted here with their `type` and
 * decided on in api/anthropic-messages/toConversation.ts: Claude Code sends server tools and its own fields freely.
 */

const cacheControl = {cache_control: z.unknown().optional()};
const textBlock = z.object({type: z.literal("text"), text: z.string(), citations: z.unknown().optional(), ...cacheControl});
const imageBlock = z.object({
    type: z.literal("image"),
    source: z.union([
        z.object({type: z.literal("base64"), media_type: z.string(), data: z.string()}),
        z.object({type: z.literal("url"), url: z.string()}),
        z.object({type: z.string()}).loose()
    ]),
    ...cacheControl
});
const toolUseBlock = z.object({type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown(), ...cacheControl});
const toolResultBlock = z.object({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(z.union([textBlock, imageBlock, otherKind({text: textBlock, image: imageBlock})]))]).optional(),
    is_error: z.boolean().nullish(),
    ...cacheControl
});
const thinkingBlock = z.object({type: z.literal("thinking"), thinking: z.string(), signature: z.string().nullish()});
const redactedThinkingBlock = z.object({type: z.literal("redacted_thinking"), data: z.string()});

const knownBlocks = {
    text: textBlock, image: imageBlock, tool_use: toolUseBlock, tool_result: toolResultBlock, thinking: thinkingBlock, redacted_thinking: redactedThinkingBlock
};
export const contentBlockSchema = z.union([textBlock, imageBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock, otherKind(knownBlocks)], {
    error: "a content block must be text, image, tool_use (id, name, input), tool_result (tool_use_id), thinking or redacted_thinking, with its required fields"
});

const message = z.object({
    // Claude Code sends system messages inside `messages` too.
    role: z.enum(["user", "assistant", "system"], {error: "role must be one of user, assistant"}),
    content: z.union([z.string(), z.array(contentBlockSchema)], {error: "content must be a string or an array of content blocks"})
});

const customTool = z.object({
    type: z.literal("custom").optional(),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "a tool name is 1 to 128 letters, digits, underscores or dashes"),
    description: z.string().nullish(),
    input_schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().nullish(),
    ...cacheControl
});
/** Server tools (`web_search_*`, `bash_*`, `text_editor_*`, …): they carry a `type` of their own. */
const serverTool = z.object({type: z.string(), name: z.string().optional()}).loose()
    .refine((tool) => tool.type !== "custom", {message: "a custom tool needs a name and an input_schema"});

const toolChoice = z.discriminatedUnion("type", [
    z.object({type: z.literal("auto"), disable_parallel_tool_use: z.boolean().nullish()}),
    z.object({type: z.literal("any"), disable_parallel_tool_use: z.boolean().nullish()}),
    z.object({type: z.literal("tool"), name: z.string(), disable_parallel_tool_use: z.boolean().nullish()}),
    z.object({type: z.literal("none")})
], {error: "tool_choice type must be one of auto, any, tool, none"});

export const messagesRequestSchema = z.object({
    model: z.string().min(1, "model is required"),
    max_tokens: z.number().int().min(1),
    messages: z.array(message),
    system: z.union([z.string(), z.array(textBlock)], {error: "system must be a string or an array of text blocks"}).nullish(),
    stop_sequences: z.array(z.string().min(1, "a stop sequence must not be empty")).max(64)
        .superRefine((stops, context) => {
            const tooLong = stopListTooLong("stop_sequences", stops);
            if (tooLong != null)
                context.addIssue({code: "custom", message: tooLong});
        }).nullish(),
    stream: z.boolean().nullish(),
    temperature: z.number().min(0).max(1).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    // Checked, not applied: a model's top-k comes from its settings (chatserve.json), as on every API.
    top_k: z.number().int().min(0).nullish(),
    tools: z.array(z.union([customTool, serverTool], {error: "a tool needs a name and an input_schema object"})).max(128).nullish(),
    tool_choice: toolChoice.nullish(),
    thinking: z.discriminatedUnion("type", [
        z.object({type: z.literal("enabled"), budget_tokens: z.number().int().min(0).nullish()}),
        z.object({type: z.literal("adaptive")}).loose(),
        z.object({type: z.literal("disabled")})
    ], {error: "thinking type must be one of enabled, adaptive, disabled"}).nullish(),
    // Accepted and ignored: they ask for nothing a local server does differently.
    metadata: z.object({user_id: z.string().nullish()}).loose().nullish(),
    service_tier: z.string().nullish(),
    context_management: z.unknown().optional(),
    output_config: z.unknown().optional(),
    container: z.unknown().optional(),
    mcp_servers: z.unknown().optional(),
    // --- chatserve extensions ---
    // Ollama's: how long the model stays loaded once idle after this request (api/keepAlive.ts).
    keep_alive: keepAliveField
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type ContentBlock = z.infer<typeof contentBlockSchema>;
export type MessagesTool = NonNullable<MessagesRequest["tools"]>[number];

/** `POST /v1/messages/count_tokens`: the same body without `max_tokens`. */
export const countTokensRequestSchema = messagesRequestSchema.omit({max_tokens: true}).extend({max_tokens: z.number().int().min(1).nullish()});
