import {BadRequestError} from "../../errors.js";
import type {ChatCompletionRequest, ChatMessage, ContentPart as ChatPart, FunctionTool} from "../openai-chat/chatCompletionRequest.js";
import type {ContentBlock, MessagesRequest} from "./messagesRequest.js";

export type ChatTranslation = {
    request: ChatCompletionRequest,
    /** For each chat message, where it came from in the Messages request (for error params). */
    messageParams: string[],
    /** For each chat tool, its index in the request's `tools`. */
    toolParams: string[],
    /** For each image part, by its chat param (`messages[2].content[1]`), its Messages block and the field its bytes came from. */
    imageParams: Map<string, {block: string, source: string}>,
    /** Server tools left out of the prompt (their types). */
    skippedTools: string[]
};

/**
 * Claude Code's first system block is a per-request billing line (`x-anthropic-billing-header: …`)
 * that changes every turn: ahead of the conversation, it would make every turn re-evaluate the
 * whole 18k-token prompt. It means nothing to a local model, so it is left out (as llama.cpp does).
 */
const perRequestSystemLine = /^x-anthropic-billing-header:/;

/**
 * An Anthropic Messages request → one chat-completions request, so templates, tools, constrained
 * decoding, reasoning, sampling and the prompt cache are the chat path's (as Ollama and llama-server
 * convert it). Pure: nothing here touches a model.
 */
export function toChatRequest(request: MessagesRequest): ChatTranslation {
    const messages: ChatMessage[] = [];
    const messageParams: string[] = [];
    const imageParams: ChatTranslation["imageParams"] = new Map();
    const push = (message: ChatMessage, param: string) => {
        messages.push(message);
        messageParams.push(param);
    };
    const system = typeof request.system === "string" ? request.system : (request.system ?? [])
        .map((block) => block.text).filter((text) => !perRequestSystemLine.test(text)).join("\n");
    if (system !== "")
        push({role: "system", content: system}, "system");
    request.messages.forEach(({role, content}, index) => {
        const param = `messages[${index}]`;
        if (typeof content === "string")
            return push({role, content}, param);
        if (role === "assistant")
            return push(assistantMessage(content, param), param);
        // A user turn's tool results answer the calls before it: each becomes a tool message, then any other content.
        const parts: ChatPart[] = [];
        const imageSources: Array<[number, {block: string, source: string}]> = [];
        content.forEach((block, blockIndex) => {
            const blockParam = `${param}.content[${blockIndex}]`;
            if (block.type === "tool_result")
                return push(toolMessage(block as ToolResult, blockParam), blockParam);
            if (block.type === "image")
                imageSources.push([parts.length, {block: blockParam, source: `${blockParam}.source.${(block as {source: ImageSource}).source.type === "url" ? "url" : "data"}`}]);
            parts.push(...userPart(block, blockParam));
        });
        if (parts.length > 0 || content.length === 0) {
            for (const [partIndex, source] of imageSources)
                imageParams.set(`messages[${messages.length}].content[${partIndex}]`, source);
            push({role: role === "system" ? "system" : "user", content: parts}, param);
        }
    });

    const {tools, toolParams, skippedTools} = chatTools(request);
    const choice = request.tool_choice;
    return {
        request: {
            model: request.model,
            messages,
            max_completion_tokens: request.max_tokens,
            stop: request.stop_sequences,
            temperature: request.temperature,
            top_p: request.top_p,
            tools: tools.length > 0 ? tools : undefined,
            tool_choice: choice == null ? undefined
                : choice.type === "any" ? "required"
                    : choice.type === "tool" ? {type: "function", function: {name: choice.name}}
                        : choice.type,
            parallel_tool_calls: choice != null && "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use === true ? false : undefined,
            // A reasoning model thinks unless thinking is disabled.
            chat_template_kwargs: request.thinking?.type === "disabled" ? {enable_thinking: false} : undefined,
            keep_alive: request.keep_alive
        },
        messageParams,
        toolParams,
        imageParams,
        skippedTools
    };
}

type ToolResult = Extract<ContentBlock, {type: "tool_result"}>;
type AssistantMessage = Extract<ChatMessage, {role: "assistant"}>;

function assistantMessage(blocks: ContentBlock[], param: string): AssistantMessage {
    const message: AssistantMessage = {role: "assistant", content: ""};
    blocks.forEach((block, index) => {
        switch (block.type) {
            case "text":
                message.content += (block as {text: string}).text;
                return;
            case "thinking":
                message.reasoning_content = (message.reasoning_content ?? "") + (block as {thinking: string}).thinking;
                return;
            case "redacted_thinking":
                return;
            case "tool_use": {
                const {id, name, input} = block as {id: string, name: string, input: unknown};
                message.tool_calls = [...message.tool_calls ?? [], {id, type: "function", function: {name, arguments: JSON.stringify(input ?? {})}}];
                return;
            }
            default:
                // A server tool's use and result (web search…) ran on Anthropic's side: nothing the model here wrote.
                if (block.type.startsWith("server_tool_use") || block.type.endsWith("_tool_result"))
                    return;
                throw unsupportedBlock(block.type, `${param}.content[${index}]`);
        }
    });
    if (message.content === "" && message.tool_calls != null)
        message.content = null;
    return message;
}

/**
 * A tool's result: its text, and its images as image parts (Claude Code's Read tool returns a
 * screenshot that way), which a vision model sees and another reads as `[image]`.
 */
function toolMessage(block: ToolResult, param: string): ChatMessage {
    // The model is told a result is an error the way Anthropic's API tells Claude: in the result itself.
    const error = block.is_error === true ? "Error: " : "";
    if (typeof block.content === "string" || !(block.content ?? []).some((part) => part.type === "image"))
        return {role: "tool", tool_call_id: block.tool_use_id, content: error + resultText(block.content)};
    const parts: ChatPart[] = (block.content ?? []).map((part, index) => part.type === "image"
        ? {type: "image_url", image_url: {url: imageUrl((part as {source: ImageSource}).source, `${param}.content[${index}].source`)}}
        : {type: "text", text: part.type === "text" ? (part as {text: string}).text : `[${part.type}]`});
    return {role: "tool", tool_call_id: block.tool_use_id, content: error === "" ? parts : [{type: "text", text: error}, ...parts]};
}

function resultText(content: ToolResult["content"]): string {
    return typeof content === "string" ? content
        : (content ?? []).map((part) => part.type === "text" ? (part as {text: string}).text : `[${part.type}]`).join("\n");
}

function userPart(block: ContentBlock, param: string): ChatPart[] {
    switch (block.type) {
        case "text":
            return [{type: "text", text: (block as {text: string}).text}];
        case "image":
            // The chat path's image part: its bytes are fetched and checked there (images/imageInput.ts).
            return [{type: "image_url", image_url: {url: imageUrl((block as {source: ImageSource}).source, `${param}.source`)}}];
        case "thinking":
        case "redacted_thinking":
            return [];
        default:
            throw unsupportedBlock(block.type, param);
    }
}

type ImageSource = {type: string, media_type?: string, data?: string, url?: string};

/**
 * An image block's source as the URL of a chat image part: base64 becomes a data: URI. Its
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

/** Custom tools become functions; server tools (web search, bash, text editor…) run on Anthropic's side and are left out. */
function chatTools(request: MessagesRequest): {tools: FunctionTool[], toolParams: string[], skippedTools: string[]} {
    const tools: FunctionTool[] = [];
    const toolParams: string[] = [];
    const skippedTools: string[] = [];
    (request.tools ?? []).forEach((tool, index) => {
        if (tool.type != null && tool.type !== "custom") {
            skippedTools.push(tool.type);
            return;
        }
        const {name, description, input_schema, strict} = tool as {name: string, description?: string | null, input_schema: Record<string, unknown>, strict?: boolean | null};
        tools.push({type: "function", function: {name, description, parameters: input_schema, strict}});
        toolParams.push(`tools[${index}]`);
    });
    const choice = request.tool_choice;
    if (choice?.type === "tool" && !tools.some((tool) => tool.function.name === choice.name)) {
        const server = (request.tools ?? []).find((tool) => tool.name === choice.name && tool.type != null && tool.type !== "custom");
        if (server != null)
            throw new BadRequestError(`tool_choice: '${choice.name}' is a server tool (${server.type}), which chatserve cannot run; offer a custom tool instead.`,
                {param: "tool_choice", code: "unsupported_tool"});
    }
    return {tools, toolParams, skippedTools};
}
