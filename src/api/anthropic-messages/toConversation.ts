import {BadRequestError} from "../../errors.js";
import type {Conversation, ImagePart, Message, Part, TextPart, Tool, ToolChoice} from "../../conversation/conversation.js";
import type {ContentBlock, MessagesRequest} from "./messagesRequest.js";

/** A Messages request in the conversation core's terms, and the server tools left out of it (their types, for a log line). */
export type MessagesConversation = {conversation: Conversation, skippedTools: string[]};

/**
 * Claude Code's first system block is a per-request billing line (`x-anthropic-billing-header: …`)
 * that changes every turn: ahead of the conversation, it would make every turn re-evaluate the
 * whole 18k-token prompt. It means nothing to a local model, so it is left out (as llama.cpp does).
 */
const perRequestSystemLine = /^x-anthropic-billing-header:/;

/**
 * An Anthropic Messages request → chatserve's conversation, so templates, tools, constrained
 * decoding, reasoning, sampling and the prompt cache are the same as every API's (as Ollama and
 * llama-server convert it). Every part keeps its place in the Messages request, which errors name.
 * Pure: nothing here touches a model.
 */
export function toConversation(request: MessagesRequest): MessagesConversation {
    const messages: Message[] = [];
    const system = typeof request.system === "string" ? request.system : (request.system ?? [])
        .map((block) => block.text).filter((text) => !perRequestSystemLine.test(text)).join("\n");
    if (system !== "")
        messages.push({role: "system", parts: [{type: "text", text: system}], path: "system"});
    request.messages.forEach(({role, content}, index) => {
        const path = `messages[${index}]`;
        if (typeof content === "string")
            messages.push({role, parts: [{type: "text", text: content}], path});
        else if (role === "assistant")
            messages.push({role, parts: assistantParts(content, path), path});
        else {
            // A user turn's tool results answer the calls before it; its other blocks are the user's words.
            const parts = content.flatMap((block, blockIndex) => userParts(block, `${path}.content[${blockIndex}]`));
            // A turn of thinking blocks alone says nothing: it is left out, as an empty one is not.
            if (parts.length > 0 || content.length === 0)
                messages.push({role: role === "system" ? "system" : "user", parts, path});
        }
    });

    const {tools, skippedTools} = toTools(request);
    const choice = request.tool_choice;
    const conversation: Conversation = {
        model: request.model,
        promptPath: "messages",
        messages,
        tools,
        ...(choice != null ? {toolChoice: toToolChoice(choice)} : {}),
        ...(choice != null && "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use === true ? {parallelToolCalls: false} : {}),
        output: {type: "text"},
        sampling: {
            ...(request.temperature != null ? {temperature: request.temperature} : {}),
            ...(request.top_p != null ? {topP: request.top_p} : {})
        },
        maxTokens: request.max_tokens,
        stop: request.stop_sequences ?? [],
        // A reasoning model thinks unless thinking is disabled.
        thinking: request.thinking?.type !== "disabled",
        ...(request.keep_alive != null ? {keepAlive: request.keep_alive} : {}),
        choices: 1
    };
    return {conversation, skippedTools};
}

function toToolChoice(choice: NonNullable<MessagesRequest["tool_choice"]>): ToolChoice {
    switch (choice.type) {
        case "any":
            return "required";
        case "tool":
            return {name: (choice as {name: string}).name};
        default:
            return choice.type as "auto" | "none";
    }
}

type ToolResult = Extract<ContentBlock, {type: "tool_result"}>;

/** An assistant's blocks: its thought, its text (the blocks' texts joined as they were written) and its calls. */
function assistantParts(blocks: ContentBlock[], path: string): Part[] {
    let thought: string | null = null;
    let text = "";
    const calls: Part[] = [];
    blocks.forEach((block, index) => {
        switch (block.type) {
            case "text":
                text += (block as {text: string}).text;
                return;
            case "thinking":
                thought = (thought ?? "") + (block as {thinking: string}).thinking;
                return;
            case "redacted_thinking":
                return;
            case "tool_use": {
                const {id, name, input} = block as {id: string, name: string, input: unknown};
                calls.push({type: "toolCall", id, name, arguments: JSON.stringify(input ?? {})});
                return;
            }
            default:
                // A server tool's use and result (web search…) ran on Anthropic's side: nothing the model here wrote.
                if (block.type.startsWith("server_tool_use") || block.type.endsWith("_tool_result"))
                    return;
                throw unsupportedBlock(block.type, `${path}.content[${index}]`);
        }
    });
    return [
        ...(thought != null && thought !== "" ? [{type: "thought", text: thought} as const] : []),
        // A reply of calls alone has no text; a reply with neither has an empty one.
        ...(text !== "" || calls.length === 0 ? [{type: "text", text} as const] : []),
        ...calls
    ];
}

/**
 * A tool's result: its text, and its images as image parts (Claude Code's Read tool returns a
 * screenshot that way), which a vision model sees and another reads as `[image]`.
 */
function toolResult(block: ToolResult, path: string): Part {
    // The model is told a result is an error the way Anthropic's API tells Claude: in the result itself.
    const error = block.is_error === true ? "Error: " : "";
    const parts = typeof block.content === "string" ? [] : block.content ?? [];
    const content: Array<TextPart | ImagePart> = !parts.some((part) => part.type === "image")
        ? [{type: "text", text: error + resultText(block.content)}]
        : [
            ...(error === "" ? [] : [{type: "text", text: error} as const]),
            ...parts.map((part, index): TextPart | ImagePart => part.type === "image"
                ? imagePart((part as {source: ImageSource}).source, `${path}.content[${index}]`)
                : {type: "text", text: part.type === "text" ? (part as {text: string}).text : `[${part.type}]`})
        ];
    return {type: "toolResult", callId: block.tool_use_id, content, path, callIdPath: path};
}

function resultText(content: ToolResult["content"]): string {
    return typeof content === "string" ? content
        : (content ?? []).map((part) => part.type === "text" ? (part as {text: string}).text : `[${part.type}]`).join("\n");
}

function userParts(block: ContentBlock, path: string): Part[] {
    switch (block.type) {
        case "text":
            return [{type: "text", text: (block as {text: string}).text}];
        case "image":
            return [imagePart((block as {source: ImageSource}).source, path)];
        case "tool_result":
            return [toolResult(block as ToolResult, path)];
        case "thinking":
        case "redacted_thinking":
            return [];
        default:
            throw unsupportedBlock(block.type, path);
    }
}

/** An image block: its bytes are fetched and checked by the conversation service (images/imageInput.ts). */
function imagePart(source: ImageSource, path: string): ImagePart {
    return {type: "image", url: imageUrl(source, `${path}.source`), path, urlPath: `${path}.source.${source.type === "url" ? "url" : "data"}`};
}

type ImageSource = {type: string, media_type?: string, data?: string, url?: string};

/**
 * An image block's source as an image URL: base64 becomes a data: URI. Its
 * media_type must be an image type, but need not be right: the bytes decide what the image is.
 */
function imageUrl(source: ImageSource, param: string): string {
    switch (source.type) {
        case "base64":
            if (!/^image\/[\w.+-]+$/i.test(source.media_type ?? ""))
                throw new BadRequestError(`${param}.media_type: '${source.media_type}' is not an image type; send image/jpeg, image/png, image/gif or image/webp.`,
                    {param: `${param}.media_type`, code: "invalid_value"});
            return `data:${source.media_type};base64,${source.data}`;
        case "url":
            return source.url!;
        default:
            throw new BadRequestError(`${param}: image sources of type '${source.type}' are not supported (there is no Files API here); send type base64 or url.`,
                {param: `${param}.type`, code: "invalid_value"});
    }
}

function unsupportedBlock(type: string, param: string): BadRequestError {
    const what = type === "document" ? "document blocks (PDF and text files) are not supported; send the text as a text block"
        : `content blocks of type '${type}' are not supported here`;
    return new BadRequestError(`${param}: ${what}.`, {param, code: "invalid_value"});
}

/** Custom tools are offered to the model; server tools (web search, bash, text editor…) run on Anthropic's side and are left out. */
function toTools(request: MessagesRequest): {tools: Tool[], skippedTools: string[]} {
    const tools: Tool[] = [];
    const skippedTools: string[] = [];
    (request.tools ?? []).forEach((tool, index) => {
        if (tool.type != null && tool.type !== "custom") {
            skippedTools.push(tool.type);
            return;
        }
        const {name, description, input_schema, strict} = tool as {name: string, description?: string | null, input_schema: Record<string, unknown>, strict?: boolean | null};
        tools.push({name, ...(description != null ? {description} : {}), parameters: input_schema, strict: strict === true, parametersPath: `tools[${index}].input_schema`});
    });
    const choice = request.tool_choice;
    if (choice?.type === "tool" && !tools.some((tool) => tool.name === choice.name)) {
        const server = (request.tools ?? []).find((tool) => tool.name === choice.name && tool.type != null && tool.type !== "custom");
        if (server != null)
            throw new BadRequestError(`tool_choice: '${choice.name}' is a server tool (${server.type}), which chatserve cannot run; offer a custom tool instead.`,
                {param: "tool_choice", code: "unsupported_tool"});
    }
    return {tools, skippedTools};
}
