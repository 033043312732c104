import {BadRequestError} from "../../errors.js";
import type {Conversation, ImagePart, Message, OutputFormat, TextPart} from "../../conversation/conversation.js";
import {toConstraintOutput} from "../openai-shared/constraintFields.js";
import type {ContentPart, InputItem, ResponsesRequest} from "./responsesRequest.js";
import {ResponseTools} from "./responseTools.js";

/** An input item and where the client can find it: `input[3]`, or null for one of a stored earlier response. */
export type SourcedItem = {item: InputItem, param: string | null};

/** A Responses request in the conversation core's terms, and its tools (which map the model's calls back to the client's names). */
export type ResponsesConversation = {conversation: Conversation, tools: ResponseTools};

/**
 * A Responses request (and the items of the response it continues) → chatserve's conversation, so
 * templating, tools, constrained decoding, sampling and the prompt cache are the same as every
 * API's, as llama-server and Ollama convert it. Every part keeps its place in the request (an item
 * of a stored response is its `previous_response_id`), which errors name. Pure: nothing here touches a model.
 */
export function toConversation(request: ResponsesRequest, items: readonly SourcedItem[]): ResponsesConversation {
    const tools = new ResponseTools(request.tools);
    const messages = new ItemMessages();
    if (request.instructions != null && request.instructions !== "")
        messages.push({role: "system", parts: [{type: "text", text: request.instructions}], path: "instructions"});
    for (const {item, param} of items)
        messages.add(item, param);
    if (messages.list.length === 0)
        throw new BadRequestError("Invalid 'input': there is nothing to answer (no instructions and no input items).", {param: "input", code: "invalid_value"});

    const effort = request.reasoning?.effort;
    const toolChoice = tools.toolChoice(request.tool_choice);
    return {
        conversation: {
            model: request.model,
            promptPath: "input",
            messages: messages.list,
            tools: tools.offered,
            ...(toolChoice != null ? {toolChoice} : {}),
            ...(request.parallel_tool_calls != null ? {parallelToolCalls: request.parallel_tool_calls} : {}),
            output: outputFormat(request, tools.offered.length > 0),
            sampling: {
                ...(request.temperature != null ? {temperature: request.temperature} : {}),
                ...(request.top_p != null ? {topP: request.top_p} : {}),
                ...(request.seed != null ? {seed: request.seed} : {})
            },
            ...(request.max_output_tokens != null ? {maxTokens: request.max_output_tokens} : {}),
            stop: [],
            // A reasoning model thinks unless the effort asks for none (OpenAI's "none" and "minimal").
            thinking: effort !== "none" && effort !== "minimal",
            ...(effort == null || effort === "none" ? {} : {templateVariables: {reasoning_effort: effort}}),
            ...(request.keep_alive != null ? {keepAlive: request.keep_alive} : {}),
            choices: 1
        },
        tools
    };
}

/**
 * The reply's format: a raw constraint (llama-server's `grammar`, vLLM's `structured_outputs`, which
 * llama-server's /v1/responses passes through as on chat), else `text.format`.
 */
function outputFormat(request: ResponsesRequest, hasTools: boolean): OutputFormat {
    const format = request.text?.format;
    const constraint = toConstraintOutput(request, {responseFormat: format != null && format.type !== "text", hasTools, formatField: "text.format"});
    if (constraint != null)
        return constraint;
    if (format?.type === "json_schema")
        return {type: "json", schema: format.schema ?? null, strict: format.strict === true, path: "text.format", schemaPath: "text.format.schema"};
    return format?.type === "json_object" ? {type: "json", schema: null, strict: false, path: "text.format", schemaPath: "text.format"} : {type: "text"};
}

/** Input items → messages, keeping an assistant's thought, text and calls in one message as templates render them. */
class ItemMessages {
    public readonly list: Message[] = [];
    /** A reasoning item's summary, for the assistant message that follows it. */
    private pendingReasoning: string | null = null;

    public push(message: Message): void {
        this.list.push(message);
    }

    public add(item: InputItem, param: string | null): void {
        const path = param ?? "previous_response_id";
        switch (item.type ?? "message") {
            case "message": {
                const {role, content} = item as Extract<InputItem, {role: string}>;
                if (role === "assistant")
                    return this.push({role, parts: [...this.takeReasoning(), {type: "text", text: typeof content === "string" ? content : assistantText(content)}], path});
                const parts = typeof content === "string" ? [{type: "text", text: content} as const]
                    : content.map((part, index) => toPart(part, partPath(param, "content", index)));
                return this.push({role: role === "user" ? "user" : "system", parts, path, ...(role === "developer" ? {wireRole: role} : {})});
            }
            case "function_call":
            case "custom_tool_call": {
                const call = item as {call_id: string, name: string, namespace?: string | null, arguments?: string, input?: string};
                const name = ResponseTools.flatName({name: call.name, namespace: call.namespace ?? undefined});
                return this.addCall({type: "toolCall", id: call.call_id, name, arguments: call.arguments ?? JSON.stringify({input: call.input ?? ""})}, path);
            }
            case "function_call_output":
            case "custom_tool_call_output": {
                const {call_id, output} = item as {call_id: string, output: string | ContentPart[]};
                const content = typeof output === "string" ? [{type: "text", text: output} as const]
                    : output.map((part, index) => toPart(part, partPath(param, "output", index)));
                return this.push({role: "user", parts: [{type: "toolResult", callId: call_id, content, path, callIdPath: param == null ? path : `${param}.call_id`}], path});
            }
            case "reasoning": {
                const {summary, content} = item as {summary?: Array<{text: string}> | null, content?: Array<{text: string}> | null};
                // A reasoning item may carry its full text, its summary, or an empty list of one and the other.
                const text = [...content != null && content.length > 0 ? content : summary ?? []].map((part) => part.text).join("\n");
                this.pendingReasoning = text === "" ? this.pendingReasoning : text;
                return;
            }
            default: {
                const type = item.type!;
                // A hosted tool's call and result (web_search_call…) ran on OpenAI's side: nothing the model here wrote.
                if (type.endsWith("_call") || type.endsWith("_call_output") || type === "compaction")
                    return;
                throw new BadRequestError(`Invalid '${path}': input items of type '${type}' are not supported; send messages, function calls and their outputs.`,
                    {param: path, code: "invalid_value"});
            }
        }
    }

    /** A call joins the assistant message just before it (its text, its other calls), or opens one. */
    private addCall(call: Extract<Message["parts"][number], {type: "toolCall"}>, path: string): void {
        const last = this.list.at(-1);
        if (last?.role === "assistant" && this.pendingReasoning == null) {
            // A reply of calls has no text: an empty one would render a token the cache does not hold.
            last.parts = [...last.parts.filter((part) => part.type !== "text" || part.text !== ""), call];
            return;
        }
        this.push({role: "assistant", parts: [...this.takeReasoning(), call], path});
    }

    private takeReasoning(): Message["parts"] {
        const reasoning = this.pendingReasoning;
        this.pendingReasoning = null;
        return reasoning == null ? [] : [{type: "thought", text: reasoning}];
    }
}

/** A Responses content part: text kinds are text; an image is an image part; anything else is a 400. */
function toPart(part: ContentPart, path: string): TextPart | ImagePart {
    switch (part.type) {
        case "input_text":
        case "output_text":
            return {type: "text", text: (part as {text: string}).text};
        case "refusal":
            return {type: "text", text: (part as {refusal: string}).refusal};
        case "input_image":
            return {type: "image", url: imageUrl(part as {image_url?: string | null, file_id?: string | null}, path), path,
                urlPath: path === "previous_response_id" ? path : `${path}.image_url`};
        default:
            throw new BadRequestError(`Invalid '${path}': content parts of type '${part.type}' are not supported; send text parts only.`, {param: path, code: "invalid_value"});
    }
}

/** `input[2].content[1]`; a part of a stored earlier response is its `previous_response_id`. */
function partPath(itemParam: string | null, field: string, index: number): string {
    return itemParam == null ? "previous_response_id" : `${itemParam}.${field}[${index}]`;
}

/** An input_image's URL (a data: URI or an http(s) URL); a file_id names an upload to a Files API, which chatserve has not. */
function imageUrl(part: {image_url?: string | null, file_id?: string | null}, path: string): string {
    const field = (name: string) => path === "previous_response_id" ? path : `${path}.${name}`;
    if (part.image_url != null)
        return part.image_url;
    if (part.file_id != null)
        throw new BadRequestError(`Invalid '${field("file_id")}': images by file_id are not supported (this server has no Files API); send image_url as a data: URI or an http(s) URL.`,
            {param: field("file_id"), code: "invalid_value"});
    throw new BadRequestError(`Invalid '${path}': an input_image needs image_url (a data: URI or an http(s) URL).`, {param: field("image_url"), code: "missing_required_parameter"});
}

/** An assistant's earlier reply: its text parts, one after another. */
function assistantText(parts: ContentPart[]): string {
    return parts.map((part) => part.type === "refusal" ? (part as {refusal: string}).refusal : (part as {text?: string}).text ?? "").join("");
}
