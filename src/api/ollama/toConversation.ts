import type {Conversation, ImagePart, Message, OutputFormat, Part} from "../../conversation/conversation.js";
import {BadRequestError} from "../../errors.js";
import type {ChatRequest, GenerateRequest, OllamaMessage} from "./ollamaRequest.js";
import {maxTokensOf, stopOf, toSampling} from "./ollamaOptions.js";

/**
 * Ollama's chat and (templated) generate requests → chatserve's conversation. Pure: nothing here
 * touches a model; the conversation service does the rest, and its errors name Ollama's fields
 * (`messages[2].images[0]`, `format`, `tools[0].function.parameters`).
 */
export function chatToConversation(request: ChatRequest): Conversation {
    return {
        ...common(request),
        promptPath: "messages",
        messages: toMessages(request.messages ?? []),
        tools: (request.tools ?? []).map(({function: tool}, index) => ({
            name: tool.name,
            ...(tool.description != null ? {description: tool.description} : {}),
            parameters: tool.parameters ?? null,
            strict: false,
            parametersPath: `tools[${index}].function.parameters`
        }))
    };
}

/** `POST /api/generate` without `raw`: the prompt as one user turn (and `system` before it), through the model's chat template, as Ollama does. */
export function generateToConversation(request: GenerateRequest): Conversation {
    const messages: Message[] = [];
    if (request.system != null && request.system !== "")
        messages.push({role: "system", parts: [{type: "text", text: request.system}], path: "system"});
    messages.push({role: "user", parts: [{type: "text", text: request.prompt ?? ""}, ...imageParts(request.images, "images")], path: "prompt"});
    return {...common(request), promptPath: "prompt", messages, tools: []};
}

function common(request: ChatRequest | GenerateRequest): Omit<Conversation, "promptPath" | "messages" | "tools"> {
    return {
        model: request.model,
        output: toOutput(request.format),
        sampling: toSampling(request.options),
        ...maxTokensOf(request.options),
        stop: stopOf(request.options),
        // An effort ("low" … "high") is thinking on: chatserve has no effort levels to pass a template.
        thinking: request.think !== false,
        ...(request.keep_alive != null ? {keepAlive: request.keep_alive} : {}),
        choices: 1
    };
}

function toOutput(format: ChatRequest["format"]): OutputFormat {
    if (format == null || format === "")
        return {type: "text"};
    // "json": any JSON object, as Ollama's grammar for it allows.
    return {type: "json", schema: format === "json" ? null : format, strict: false, path: "format", schemaPath: "format"};
}

function imageParts(images: string[] | null | undefined, path: string): ImagePart[] {
    // Bare base64, as Ollama's clients send it; the image reader takes it as it is.
    return (images ?? []).map((image, index) => ({type: "image", url: image, path: `${path}[${index}]`, urlPath: `${path}[${index}]`}));
}

/**
 * Ollama's messages. Its tool results name their call by `tool_name` (and, from newer clients,
 * `tool_call_id`); the core pairs results with calls by id, so calls without an id get one here and
 * each result answers the earlier assistant's first unanswered call of its name (else its first unanswered call).
 */
function toMessages(messages: readonly OllamaMessage[]): Message[] {
    let unanswered: Array<{id: string, name: string}> = [];
    return messages.map((message, index) => {
        const path = `messages[${index}]`;
        const text = message.content ?? "";
        switch (message.role) {
            case "system":
                return {role: "system", parts: [{type: "text", text}], path};
            case "user":
                return {role: "user", parts: [...(text !== "" || message.images == null ? [{type: "text" as const, text}] : []), ...imageParts(message.images, `${path}.images`)], path};
            case "assistant": {
                const parts: Part[] = [];
                if (message.thinking != null && message.thinking !== "")
                    parts.push({type: "thought", text: message.thinking});
                const calls = (message.tool_calls ?? []).map((call, callIndex) => ({
                    type: "toolCall" as const,
                    id: call.id ?? `call_${index}_${callIndex}`,
                    name: call.function.name,
                    arguments: typeof call.function.arguments === "string" ? call.function.arguments : JSON.stringify(call.function.arguments ?? {})
                }));
                if (text !== "" || calls.length === 0)
                    parts.push({type: "text", text});
                parts.push(...calls);
                unanswered = calls.map(({id, name}) => ({id, name}));
                return {role: "assistant", parts, path};
            }
            case "tool": {
                const call = answeredCall(unanswered, message, path);
                unanswered = unanswered.filter((candidate) => candidate !== call);
                return {role: "user", path, parts: [{
                    type: "toolResult", callId: call.id, path, callIdPath: `${path}.tool_call_id`,
                    content: [{type: "text", text}, ...imageParts(message.images, `${path}.images`)]
                }]};
            }
        }
    });
}

function answeredCall(unanswered: ReadonlyArray<{id: string, name: string}>, message: OllamaMessage, path: string): {id: string, name: string} {
    const call = unanswered.find((candidate) => candidate.id === message.tool_call_id)
        ?? unanswered.find((candidate) => candidate.name === message.tool_name)
        ?? unanswered[0];
    if (call == null)
        throw new BadRequestError(`Invalid '${path}': a tool message must answer a tool call of the assistant message before it, and no call is left unanswered there.`,
            {param: path, code: "invalid_value"});
    return call;
}
