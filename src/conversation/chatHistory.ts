import type {ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse} from "node-llama-cpp";
import {BadRequestError} from "../errors.js";
import type {ChatMessage, ContentPart} from "../api/openai-chat/chatCompletionRequest.js";
import {mediaMarkerFor} from "../engine/vision/mediaMarker.js";
import {parseExactJson} from "../json-schema/exactJson.js";
import {isImagePart} from "./imageParts.js";

/**
 * OpenAI messages → the chat history node-llama-cpp's templates render.
 * `developer` is OpenAI's newer name for `system`. An assistant's tool calls and the `tool`
 * messages answering them become function-call items of that model turn, which is how the
 * templates render a call followed by its result. An assistant message right after tool results
 * continues that same model turn (the template's result markup already reopens the assistant's
 * turn), as the model saw it when it wrote it: a new turn there would add an empty one.
 * Image parts (a user message's, a tool result's) become the media marker, where the image's tokens
 * go once the template has rendered (engine/vision/imagePrompt.ts). With `images` false a user message's
 * are refused, and a tool result's read `[image]`: an agent's tool that returned a picture to a
 * model that cannot see it goes on with the text.
 */
export function toChatHistory(messages: readonly ChatMessage[], {images: withImages = false}: {images?: boolean} = {}): ChatHistoryItem[] {
    const history: ChatHistoryItem[] = [];
    // Per id, in order: histories from servers that number calls per reply reuse ids (two `call_0`s).
    const callsById = new Map<string, ChatModelFunctionCall[]>();
    let afterToolResult = false;
    // Each image's marker carries its number in message order, as conversation/imageParts.ts lists them.
    let images = 0;
    const imagesAs = (other: ImagePolicy): ImagePolicy => withImages ? {marker: () => mediaMarkerFor(images++)} : other;

    messages.forEach((message, index) => {
        if (message.role !== "tool" && message.role !== "assistant")
            afterToolResult = false;
        switch (message.role) {
            case "system":
            case "developer":
                history.push({type: "system", text: contentText(message.content, index)});
                return;
            case "user":
                history.push({type: "user", text: contentText(message.content, index, imagesAs("refused"))});
                return;
            case "assistant": {
                const previous = history.at(-1);
                const continues = afterToolResult && previous?.type === "model";
                const response: ChatModelResponse["response"] = continues ? previous.response : [];
                // The template decides whether an earlier thought is shown to the model again (most drop it).
                if (message.reasoning_content != null && message.reasoning_content !== "")
                    response.push({type: "segment", segmentType: "thought", text: message.reasoning_content, ended: true});
                // Continue and opencode send a reply of calls as `content: ""`: the model wrote no text
                // there, and an empty text before the calls renders a token the cache does not hold.
                const text = message.content == null ? null : contentText(message.content, index);
                if (text != null && (text !== "" || message.tool_calls == null || message.tool_calls.length === 0))
                    response.push(text);
                message.tool_calls?.forEach((call, callIndex) => {
                    const functionCall: ChatModelFunctionCall = {
                        type: "functionCall",
                        name: call.function.name,
                        params: jsonOrText(call.function.arguments),
                        result: undefined,
                        startsNewChunk: callIndex === 0
                    };
                    callsById.set(call.id, [...callsById.get(call.id) ?? [], functionCall]);
                    response.push(functionCall);
                });
                if (!continues)
                    history.push({type: "model", response});
                afterToolResult = false;
                return;
            }
            case "tool": {
                // A result answers the first call of its id still without one (else the id's last call, as before).
                const calls = callsById.get(message.tool_call_id);
                const call = calls?.find((candidate) => candidate.result === undefined) ?? calls?.at(-1);
                if (call == null)
                    throw new BadRequestError(
                        `messages[${index}]: a tool message must answer a tool call of an earlier assistant message; no call has id '${message.tool_call_id}'.`,
                        {param: `messages[${index}].tool_call_id`, code: "invalid_value"});
                call.result = jsonOrText(contentText(message.content, index, imagesAs("placeholder text")));
                afterToolResult = true;
                return;
            }
        }
        return message satisfies never;
    });
    return history;
}

/** What an image part becomes: its numbered media marker, `[image]`, or a 400 (the default: where no image belongs). */
type ImagePolicy = {marker: () => string} | "placeholder text" | "refused";

function contentText(content: string | ContentPart[], messageIndex: number, images: ImagePolicy = "refused"): string {
    if (typeof content === "string")
        return content;

    return content.map((part, partIndex) => {
        const param = `messages[${messageIndex}].content[${partIndex}]`;
        if (part.type === "text" && typeof part.text === "string")
            return part.text;
        if (part.type === "text")
            throw new BadRequestError(`Invalid '${param}': a text part needs a string 'text'.`, {param, code: "invalid_value"});
        if (isImagePart(part) && typeof images === "object")
            return images.marker();
        if (isImagePart(part) && images === "placeholder text")
            return "[image]";
        if (isImagePart(part))
            throw new BadRequestError(`Invalid '${param}': this model does not take image input; send text parts only.`, {param, code: "image_input_not_supported"});
        throw new BadRequestError(`Invalid '${param}': content parts of type '${part.type}' are not supported; send text parts only.`, {param, code: "invalid_value"});
    }).join("\n");
}

/**
 * Templates render a call's arguments and its result as JSON: text that is JSON already is passed
 * as its value, not re-quoted. Other text is passed as a string, as llama.cpp does: a call cut short
 * by max_tokens (`{"city": "Par`) comes back in the next turn's history, and refusing it would end
 * the conversation. JSON nested deeper than a template can render stays text too.
 */
function jsonOrText(text: string): unknown {
    try {
        return parseExactJson(text);
    } catch {
        return text;
    }
}
