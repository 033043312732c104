import {BadRequestError} from "../../errors.js";
import type {ChatCompletionRequest, ChatMessage, ContentPart as ChatPart} from "../openai-chat/chatCompletionRequest.js";
import type {ContentPart, InputItem, ResponsesRequest} from "./responsesRequest.js";
import {ResponseTools} from "./responseTools.js";

/** An input item and where the client can find it: `input[3]`, or null for one of a stored earlier response. */
export type SourcedItem = {item: InputItem, param: string | null};

export type ChatTranslation = {
    request: ChatCompletionRequest,
    tools: ResponseTools,
    /** For each chat message, the input item it came from (for error params). */
    messageParams: Array<string | null>
};

/**
 * A Responses request (and the items of the response it continues) → one chat-completions request,
 * so templating, tools, constrained decoding, sampling and the prompt cache are the chat path's,
 * as llama-server and Ollama convert it. Pure: nothing here touches a model.
 */
export function toChatRequest(request: ResponsesRequest, items: readonly SourcedItem[]): ChatTranslation {
    const tools = new ResponseTools(request.tools);
    const builder = new MessageBuilder();
    if (request.instructions != null && request.instructions !== "")
        builder.push({role: "system", content: request.instructions}, "instructions");
    for (const {item, param} of items)
        builder.add(item, param);
    if (builder.messages.length === 0)
        throw new BadRequestError("Invalid 'input': there is nothing to answer (no instructions and no input items).", {param: "input", code: "invalid_value"});

    const format = request.text?.format;
    const effort = request.reasoning?.effort;
    return {
        request: {
            model: request.model,
            messages: builder.messages,
            max_completion_tokens: request.max_output_tokens,
            parallel_tool_calls: request.parallel_tool_calls,
            temperature: request.temperature,
            top_p: request.top_p,
            seed: request.seed,
            tools: tools.chatTools.length > 0 ? tools.chatTools : undefined,
            tool_choice: tools.chatToolChoice(request.tool_choice),
            response_format: format?.type === "json_schema"
                ? {type: "json_schema", json_schema: {name: format.name, description: format.description, schema: format.schema, strict: format.strict}}
                : format,
            // A reasoning model thinks unless the effort asks for none (OpenAI's "none" and "minimal").
            chat_template_kwargs: effort === "none" || effort === "minimal" ? {enable_thinking: false} : undefined,
            keep_alive: request.keep_alive
        },
        tools,
        messageParams: builder.params
    };
}

/** Input items → chat messages, keeping an assistant's text, thought and calls in one message as templates render them. */
class MessageBuilder {
    public readonly messages: ChatMessage[] = [];
    public readonly params: Array<string | null> = [];
    /** A reasoning item's summary, for the assistant message that follows it. */
    private pendingReasoning: string | null = null;

    public push(message: ChatMessage, param: string | null): void {
        this.messages.push(message);
        this.params.push(param);
    }

    public add(item: InputItem, param: string | null): void {
        switch (item.type ?? "message") {
            case "message": {
                const {role, content} = item as Extract<InputItem, {role: string}>;
                if (role === "assistant")
                    return this.push({role, content: typeof content === "string" ? content : assistantText(content), ...this.takeReasoning()}, param);
                return this.push({role, content: typeof content === "string" ? content : content.map((part, index) => toChatPart(part, partParam(param, "content", index)))}, param);
            }
            case "function_call":
            case "custom_tool_call": {
                const call = item as {call_id: string, name: string, namespace?: string | null, arguments?: string, input?: string};
                const name = ResponseTools.flatName({name: call.name, namespace: call.namespace ?? undefined});
                const args = call.arguments ?? JSON.stringify({input: call.input ?? ""});
                return this.addCall({id: call.call_id, type: "function", function: {name, arguments: args}}, param);
            }
            case "function_call_output":
            case "custom_tool_call_output": {
                const {call_id, output} = item as {call_id: string, output: string | ContentPart[]};
                return this.push({role: "tool", tool_call_id: call_id, content: typeof output === "string" ? output
                    : output.map((part, index) => toChatPart(part, partParam(param, "output", index)))}, param);
            }
            case "reasoning": {
                const {summary, content} = item as {summary?: Array<{text: string}> | null, content?: Array<{text: string}> | null};
                const text = [...content ?? summary ?? []].map((part) => part.text).join("\n");
                this.pendingReasoning = text === "" ? this.pendingReasoning : text;
                return;
            }
            default: {
                const type = item.type!;
                // A hosted tool's call and result (web_search_call…) ran on OpenAI's side: nothing the model here wrote.
                if (type.endsWith("_call") || type.endsWith("_call_output") || type === "compaction")
                    return;
                throw new BadRequestError(`Invalid '${param ?? "previous_response_id"}': input items of type '${type}' are not supported; send messages, function calls and their outputs.`,
                    {param: param ?? "previous_response_id", code: "invalid_value"});
            }
        }
    }

    /** A call joins the assistant message just before it (its text, its other calls), or opens one. */
    private addCall(call: NonNullable<Extract<ChatMessage, {role: "assistant"}>["tool_calls"]>[number], param: string | null): void {
        const last = this.messages.at(-1);
        if (last?.role === "assistant" && this.pendingReasoning == null) {
            last.tool_calls = [...last.tool_calls ?? [], call];
            return;
        }
        this.push({role: "assistant", content: null, tool_calls: [call], ...this.takeReasoning()}, param);
    }

    private takeReasoning(): {reasoning_content?: string} {
        const reasoning = this.pendingReasoning;
        this.pendingReasoning = null;
        return reasoning == null ? {} : {reasoning_content: reasoning};
    }
}

/** Responses content parts → chat parts: text kinds become text; an image the chat path's image part (its answer too). */
function toChatPart(part: ContentPart, param: string): ChatPart {
    switch (part.type) {
        case "input_text":
        case "output_text":
            return {type: "text", text: (part as {text: string}).text};
        case "refusal":
            return {type: "text", text: (part as {refusal: string}).refusal};
        case "input_image":
            return {type: "image_url", image_url: {url: imageUrl(part as {image_url?: string | null, file_id?: string | null}, param)}};
        default:
            return {type: part.type};
    }
}

/** `input[2].content[1]`; a part of a stored earlier response is its `previous_response_id`. */
function partParam(itemParam: string | null, field: string, index: number): string {
    return itemParam == null ? "previous_response_id" : `${itemParam}.${field}[${index}]`;
}

/** An input_image's URL (a data: URI or an http(s) URL); a file_id names an upload to a Files API, which chatserve has not. */
function imageUrl(part: {image_url?: string | null, file_id?: string | null}, param: string): string {
    const field = (name: string) => param === "previous_response_id" ? param : `${param}.${name}`;
    if (part.image_url != null)
        return part.image_url;
    if (part.file_id != null)
        throw new BadRequestError(`Invalid '${field("file_id")}': images by file_id are not supported (this server has no Files API); send image_url as a data: URI or an http(s) URL.`,
            {param: field("file_id"), code: "invalid_value"});
    throw new BadRequestError(`Invalid '${param}': an input_image needs image_url (a data: URI or an http(s) URL).`, {param: field("image_url"), code: "missing_required_parameter"});
}

/** An assistant's earlier reply: its text parts, one after another. */
function assistantText(parts: ContentPart[]): string {
    return parts.map((part) => part.type === "refusal" ? (part as {refusal: string}).refusal : (part as {text?: string}).text ?? "").join("");
}
