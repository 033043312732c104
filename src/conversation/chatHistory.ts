import type {ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse} from "node-llama-cpp";
import {mediaMarkerFor} from "../engine/vision/mediaMarker.js";
import {BadRequestError} from "../errors.js";
import {parseExactJson} from "../json-schema/exactJson.js";
import type {ImagePart, Message, Part, TextPart, ToolResultPart} from "./conversation.js";

/**
 * A conversation's messages → the chat history node-llama-cpp's templates render.
 * An assistant's tool calls and the results answering them become function-call items of that
 * model turn, which is how the templates render a call followed by its result. An assistant message
 * right after tool results continues that same model turn (the template's result markup already
 * reopens the assistant's turn), as the model saw it when it wrote it: a new turn there would add an
 * empty one. Image parts (a user's, a tool result's) become the media marker, where the image's
 * tokens go once the template has rendered (engine/vision/imagePrompt.ts). With `images` false a
 * user's image is refused, and a tool result's reads `[image]`: an agent's tool that returned a
 * picture to a model that cannot see it goes on with the text.
 */
export function toChatHistory(messages: readonly Message[], {images: withImages = false}: {images?: boolean} = {}): ChatHistoryItem[] {
    const history: ChatHistoryItem[] = [];
    // Per id, in order: histories from servers that number calls per reply reuse ids (two `call_0`s).
    const callsById = new Map<string, ChatModelFunctionCall[]>();
    let afterToolResult = false;
    // Each image's marker carries its number in part order, as imageParts.ts lists them.
    let images = 0;
    const imagesAs = (other: ImagePolicy): ImagePolicy => withImages ? {marker: () => mediaMarkerFor(images++)} : other;

    const answer = (result: ToolResultPart) => {
        // A result answers the first call of its id still without one (else the id's last call, as before).
        const calls = callsById.get(result.callId);
        const call = calls?.find((candidate) => candidate.result === undefined) ?? calls?.at(-1);
        if (call == null)
            throw new BadRequestError(
                `${result.path}: a tool message must answer a tool call of an earlier assistant message; no call has id '${result.callId}'.`,
                {param: result.callIdPath, code: "invalid_value"});
        call.result = jsonOrText(contentText(result.content, imagesAs("placeholder text")));
        afterToolResult = true;
    };

    for (const message of messages) {
        switch (message.role) {
            case "system":
            case "user": {
                // Each part in its order, so that images are numbered as imageParts.ts lists them.
                const pieces: string[] = [];
                for (const part of message.parts)
                    if (part.type === "toolResult")
                        answer(part);
                    else
                        pieces.push(contentText([part as ContentPart], message.role === "system" ? "refused" : imagesAs("refused")));
                // A message of tool results only is those results; anything else (even nothing) is the turn's own.
                if (pieces.length > 0 || message.parts.length === 0) {
                    history.push({type: message.role, text: pieces.join("\n")});
                    afterToolResult = false;
                }
                break;
            }
            case "assistant":
                addModelTurn(message.parts, history, callsById, afterToolResult);
                afterToolResult = false;
                break;
            default:
                message.role satisfies never;
        }
    }
    return history;
}

type ContentPart = TextPart | ImagePart;

function addModelTurn(parts: readonly Part[], history: ChatHistoryItem[], callsById: Map<string, ChatModelFunctionCall[]>, afterToolResult: boolean): void {
    const previous = history.at(-1);
    const continues = afterToolResult && previous?.type === "model";
    const response: ChatModelResponse["response"] = continues ? previous.response : [];
    // The template decides whether an earlier thought is shown to the model again (most drop it).
    for (const part of parts)
        if (part.type === "thought")
            response.push({type: "segment", segmentType: "thought", text: part.text, ended: true});
    const content = parts.filter((part): part is ContentPart => part.type === "text" || part.type === "image");
    if (content.length > 0)
        response.push(contentText(content));
    let calls = 0;
    for (const part of parts) {
        if (part.type !== "toolCall")
            continue;
        const functionCall: ChatModelFunctionCall = {
            type: "functionCall", name: part.name, params: jsonOrText(part.arguments), result: undefined, startsNewChunk: calls++ === 0
        };
        callsById.set(part.id, [...callsById.get(part.id) ?? [], functionCall]);
        response.push(functionCall);
    }
    if (!continues)
        history.push({type: "model", response});
}

/** What an image part becomes: its numbered media marker, `[image]`, or a 400 (the default: where no image belongs). */
type ImagePolicy = {marker: () => string} | "placeholder text" | "refused";

function contentText(content: readonly ContentPart[], images: ImagePolicy = "refused"): string {
    return content.map((part) => {
        if (part.type === "text")
            return part.text;
        if (typeof images === "object")
            return images.marker();
        if (images === "placeholder text")
            return "[image]";
        throw new BadRequestError(`Invalid '${part.path}': this model does not take image input; send text parts only.`, {param: part.path, code: "image_input_not_supported"});
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
