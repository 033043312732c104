import type {Conversation, ImagePart, Message, Part, TextPart, ToolChoice} from "../../conversation/conversation.js";
import {BadRequestError} from "../../errors.js";
import {choiceCount} from "../openai-shared/choiceCount.js";
import {toSampling} from "../openai-shared/samplingFields.js";
import {toConstraintOutput} from "../openai-shared/constraintFields.js";
import {rejectUnsupportedChatFields} from "./unsupportedFields.js";
import {predictionText} from "./predictionField.js";
import type {ChatCompletionRequest, ChatMessage, ContentPart} from "./chatCompletionRequest.js";

/**
 * A chat-completions request → chatserve's conversation. Pure: nothing here touches a model. Every
 * refusal that depends on the request alone happens here (fields chatserve does not do, content
 * parts it cannot read, too many choices); the rest waits for the model (conversationService.ts).
 */
export function toConversation(request: ChatCompletionRequest): Conversation {
    rejectUnsupportedChatFields(request);
    const kwargs = request.chat_template_kwargs;
    return {
        model: request.model,
        promptPath: "messages",
        messages: request.messages.map(toMessage),
        tools: (request.tools ?? []).map(({function: tool}, index) => ({
            name: tool.name,
            ...(tool.description != null ? {description: tool.description} : {}),
            parameters: tool.parameters,
            strict: tool.strict === true,
            parametersPath: `tools[${index}].function.parameters`
        })),
        ...(request.tool_choice != null ? {toolChoice: toToolChoice(request.tool_choice)} : {}),
        ...(request.parallel_tool_calls != null ? {parallelToolCalls: request.parallel_tool_calls} : {}),
        // A raw constraint (llama-server's `grammar`, vLLM's `structured_outputs`), else `response_format`.
        output: toConstraintOutput(request, {
            responseFormat: request.response_format != null && request.response_format.type !== "text", hasTools: (request.tools ?? []).length > 0
        }) ?? toOutputFormat(request.response_format),
        sampling: toSampling(request),
        // Zed and newer SDKs send max_completion_tokens, the successor of max_tokens.
        ...optional("maxTokens", request.max_completion_tokens ?? request.max_tokens),
        stop: typeof request.stop === "string" ? [request.stop] : request.stop ?? [],
        // llama-server's spelling (Qwen3's template variable), or DeepSeek V3.1's; or OpenAI's effort.
        thinking: kwargs?.enable_thinking ?? kwargs?.thinking ?? (request.reasoning_effort !== "none" && request.reasoning_effort !== "minimal"),
        ...templateVariables(request),
        ...optional("keepAlive", request.keep_alive),
        choices: choiceCount(request.n),
        ...(request.logprobs === true ? {logprobs: {top: request.top_logprobs ?? 0}} : {}),
        ...optional("prediction", predictionText(request.prediction, request)),
        // llama-server's per-request LoRA scales, read against the model's adapters once it is known.
        ...optional("lora", request.lora)
    };
}

/** chat_template_kwargs as sent, and reasoning_effort under the name templates read (GPT-OSS's). */
function templateVariables(request: ChatCompletionRequest): {templateVariables?: Record<string, unknown>} {
    const variables = {
        ...Object.fromEntries(Object.entries(request.chat_template_kwargs ?? {}).filter(([, value]) => value != null)),
        ...(request.reasoning_effort == null || request.reasoning_effort === "none" ? {} : {reasoning_effort: request.reasoning_effort})
    };
    return Object.keys(variables).length === 0 ? {} : {templateVariables: variables};
}

function optional<K extends string, V>(key: K, value: V | null | undefined): {[key in K]?: V} {
    return value == null ? {} : {[key]: value} as {[key in K]: V};
}

function toToolChoice(choice: NonNullable<ChatCompletionRequest["tool_choice"]>): ToolChoice {
    return typeof choice === "object" ? {name: choice.function.name} : choice;
}

function toOutputFormat(format: ChatCompletionRequest["response_format"]): Conversation["output"] {
    switch (format?.type) {
        case undefined:
        case "text":
            return {type: "text"};
        case "json_object":
            return {type: "json", schema: null, strict: false, path: "response_format", schemaPath: "response_format"};
        case "json_schema":
            return {
                type: "json", schema: format.json_schema.schema ?? null, strict: format.json_schema.strict === true,
                path: "response_format", schemaPath: "response_format.json_schema.schema"
            };
    }
}

/**
 * `developer` is OpenAI's newer name for `system`. A `tool` message is a user-side message holding
 * one tool result; an assistant's calls and thought are parts of its message.
 */
function toMessage(message: ChatMessage, index: number): Message {
    const path = `messages[${index}]`;
    switch (message.role) {
        case "system":
            return {role: "system", parts: contentParts(message.content, path), path};
        case "developer":
            return {role: "system", parts: contentParts(message.content, path), path, wireRole: "developer"};
        case "user":
            return {role: "user", parts: contentParts(message.content, path), path};
        case "assistant": {
            const parts: Part[] = [];
            if (message.reasoning_content != null && message.reasoning_content !== "")
                parts.push({type: "thought", text: message.reasoning_content});
            // Continue and opencode send a reply of calls as `content: ""`: the model wrote no text there.
            const calls = message.tool_calls ?? [];
            if (message.content != null && (calls.length === 0 || !isEmpty(message.content)))
                parts.push(...contentParts(message.content, path));
            for (const call of calls)
                parts.push({type: "toolCall", id: call.id, name: call.function.name, arguments: call.function.arguments});
            return {role: "assistant", parts, path};
        }
        case "tool":
            return {role: "user", path, parts: [{
                type: "toolResult", callId: message.tool_call_id, path, callIdPath: `${path}.tool_call_id`,
                content: contentParts(message.content, path) as Array<TextPart | ImagePart>
            }]};
    }
}

/** Whether the content reads as no text at all ("", [] or one empty text part). */
function isEmpty(content: string | ContentPart[]): boolean {
    return typeof content === "string" ? content === "" : content.length === 0 || (content.length === 1 && content[0]!.type === "text" && content[0]!.text === "");
}

/** A message's content as parts: a string is one text part; parts are text or images (`image_url`). */
function contentParts(content: string | ContentPart[], messagePath: string): Array<TextPart | ImagePart> {
    if (typeof content === "string")
        return [{type: "text", text: content}];
    return content.map((part, index) => {
        const path = `${messagePath}.content[${index}]`;
        if (part.type === "text" && typeof part.text === "string")
            return {type: "text", text: part.text};
        if (part.type === "text")
            throw new BadRequestError(`Invalid '${path}': a text part needs a string 'text'.`, {param: path, code: "invalid_value"});
        if (part.type === "image_url" || part.type === "input_image")
            return {type: "image", url: imageUrlOf(part, path), path, urlPath: `${path}.image_url.url`};
        throw new BadRequestError(`Invalid '${path}': content parts of type '${part.type}' are not supported; send text parts only.`, {param: path, code: "invalid_value"});
    });
}

/** `image_url: {url, detail}` as OpenAI sends it; a bare string as some clients do. */
function imageUrlOf(part: ContentPart, path: string): string {
    const field = (part as {image_url?: unknown}).image_url;
    const url = typeof field === "string" ? field : (field as {url?: unknown} | null | undefined)?.url;
    if (typeof url !== "string" || url === "")
        throw new BadRequestError(`Invalid '${path}': an image_url part needs 'image_url.url', a data: URI or an http(s) URL.`, {param: `${path}.image_url`, code: "invalid_value"});
    return url;
}
