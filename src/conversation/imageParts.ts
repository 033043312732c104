import {BadRequestError} from "../errors.js";
import type {ChatMessage, ContentPart} from "../api/openai-chat/chatCompletionRequest.js";

/** An image part of a request, by where it sits (`param`, for errors) and the URL it gives; `toolResult`: in a tool's result. */
export type ImagePartRef = {url: string, param: string, toolResult: boolean};

/** Whether a content part is an image: chat's `image_url` (Responses' and Messages' images arrive as one too). */
export function isImagePart(part: ContentPart): boolean {
    return part.type === "image_url" || part.type === "input_image";
}

/**
 * The image parts of the user messages and of tool results (an Anthropic client's screenshot read by
 * a tool), in the order the template renders them (the order of the messages and of their parts).
 * An image elsewhere (a system or assistant message) is a 400, as OpenAI's API answers it.
 */
export function imagePartsOf(messages: readonly ChatMessage[]): ImagePartRef[] {
    const found: ImagePartRef[] = [];
    messages.forEach((message, messageIndex) => {
        if (typeof message.content !== "object" || message.content == null)
            return;
        message.content.forEach((part, partIndex) => {
            if (!isImagePart(part))
                return;
            const param = `messages[${messageIndex}].content[${partIndex}]`;
            if (message.role !== "user" && message.role !== "tool")
                throw new BadRequestError(`Invalid '${param}': images go in user messages, not in ${message.role} messages.`, {param, code: "invalid_value"});
            found.push({url: imageUrlOf(part, param), param: `${param}.image_url.url`, toolResult: message.role === "tool"});
        });
    });
    return found;
}

/** `image_url: {url, detail}` as OpenAI sends it; a bare string as some clients do. */
function imageUrlOf(part: ContentPart, param: string): string {
    const field = (part as {image_url?: unknown}).image_url;
    const url = typeof field === "string" ? field : (field as {url?: unknown} | null | undefined)?.url;
    if (typeof url !== "string" || url === "")
        throw new BadRequestError(`Invalid '${param}': an image_url part needs 'image_url.url', a data: URI or an http(s) URL.`, {param: `${param}.image_url`, code: "invalid_value"});
    return url;
}
