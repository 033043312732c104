import type {TemplateMessage, TemplateTool, TemplateToolCall} from "../engine/template/templateMessage.js";
import {mediaMarkerFor} from "../engine/vision/mediaMarker.js";
import type {ImagePart, Message, TextPart, Tool} from "./conversation.js";

/**
 * A conversation's messages → the OpenAI-shaped messages a model's own chat template renders, as
 * llama-server builds them from a chat request: each tool result its own `tool` message answering
 * its call's id, an assistant's thought as `reasoning_content`, calls with their arguments as the
 * client sent them. Images become numbered media markers (engine/vision/imagePrompt.ts puts the
 * image's tokens there), in the order imageParts.ts lists them; with `images` false a tool
 * result's image reads `[image]` (a user's was refused already, by chatHistory.ts).
 */
export function toTemplateMessages(messages: readonly Message[], {images: withImages = false}: {images?: boolean} = {}): TemplateMessage[] {
    const rendered: TemplateMessage[] = [];
    let images = 0;
    const contentText = (parts: ReadonlyArray<TextPart | ImagePart>) => joinParts(parts.map((part) =>
        part.type === "text" ? {text: part.text} : {marker: withImages ? mediaMarkerFor(images++) : "[image]", image: withImages}));

    for (const message of messages) {
        if (message.role === "assistant") {
            const text = message.parts.filter((part): part is TextPart | ImagePart => part.type === "text" || part.type === "image");
            const thought = message.parts.flatMap((part) => part.type === "thought" ? [part.text] : []).join("\n");
            const calls = message.parts.flatMap((part): TemplateToolCall[] =>
                part.type === "toolCall" ? [{type: "function", function: {name: part.name, arguments: part.arguments}, id: part.id}] : []);
            rendered.push({
                role: "assistant", content: contentText(text),
                ...(thought === "" ? {} : {reasoning_content: thought}),
                ...(calls.length === 0 ? {} : {tool_calls: calls})
            });
            continue;
        }
        // A user message's tool results are tool messages of their own; its other parts stay one message.
        let pending: Array<TextPart | ImagePart> = [];
        let wrote = false;
        const flush = () => {
            if (pending.length > 0)
                rendered.push({role: message.role, content: contentText(pending)});
            wrote ||= pending.length > 0;
            pending = [];
        };
        for (const part of message.parts) {
            if (part.type === "toolResult") {
                flush();
                rendered.push({role: "tool", content: contentText(part.content), tool_call_id: part.callId});
                wrote = true;
            } else if (part.type === "text" || part.type === "image")
                pending.push(part);
        }
        flush();
        if (!wrote)
            rendered.push({role: message.role, content: ""});
    }
    return rendered;
}

/** The client's tools as templates list them, their schemas exactly as sent (none: an empty object, as llama.cpp passes). */
export function toTemplateTools(tools: readonly Tool[]): TemplateTool[] {
    return tools.map((tool) => ({type: "function", function: {name: tool.name, description: tool.description ?? "", parameters: tool.parameters ?? {}}}));
}

/** Parts joined by a line break, as llama.cpp joins them, but with none on either side of an image's marker. */
function joinParts(pieces: ReadonlyArray<{text: string} | {marker: string, image: boolean}>): string {
    let text = "";
    let afterImage = false;
    for (const piece of pieces) {
        const isImage = "marker" in piece && piece.image;
        const value = "text" in piece ? piece.text : piece.marker;
        if (text !== "" && !isImage && !afterImage)
            text += "\n";
        text += value;
        afterImage = isImage;
    }
    return text;
}
