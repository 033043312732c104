import {BadRequestError} from "../errors.js";
import type {Message} from "./conversation.js";

/** An image part of a request, by the field its URL is in (`param`, for errors) and that URL; `toolResult`: in a tool's result. */
export type ImagePartRef = {url: string, param: string, toolResult: boolean};

/**
 * The image parts of the user messages and of tool results (an Anthropic client's screenshot read by
 * a tool), in part order: the numbers chatHistory.ts gives their markers. An image elsewhere (a
 * system or assistant message) is a 400, as OpenAI's API answers it.
 */
export function imagePartsOf(messages: readonly Message[]): ImagePartRef[] {
    const found: ImagePartRef[] = [];
    for (const message of messages)
        for (const part of message.parts) {
            if (part.type === "image" && message.role !== "user")
                throw new BadRequestError(`Invalid '${part.path}': images go in user messages, not in ${message.wireRole ?? message.role} messages.`, {param: part.path, code: "invalid_value"});
            if (part.type === "image")
                found.push({url: part.url, param: part.urlPath, toolResult: false});
            if (part.type === "toolResult")
                for (const inner of part.content)
                    if (inner.type === "image")
                        found.push({url: inner.url, param: inner.urlPath, toolResult: true});
        }
    return found;
}
