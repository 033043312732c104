import {createHash} from "node:crypto";
import {LlamaText, type LlamaModel, type Token} from "node-llama-cpp";
import {BadRequestError} from "../../errors.js";
import type {PreparedPrompt, PromptImage} from "../preparedPrompt.js";
import {numberedMarker} from "./mediaMarker.js";
import type {TokenizedImage} from "./nativeVision.js";

/**
 * A rendered chat prompt with images: the template saw each image as its numbered media marker;
 * the text between markers is tokenized piece by piece (as llama-server's mtmd_tokenize does), and
 * each marker gives way to the parts of the image it names: the projector's own wrapper tokens (`<start_of_image>`) and
 * one placeholder per position the image takes.
 */
export function tokenizeWithImages(
    model: LlamaModel, rendered: LlamaText, images: readonly TokenizedImage[], promptName: string
): {tokens: Token[], images: PromptImage[]} {
    const {segments, order} = splitAtMarkers(rendered);
    // Each image once: a template that dropped or repeated a message would misplace them.
    if (order.length !== images.length || new Set(order).size !== images.length || order.some((index) => index >= images.length))
        throw new BadRequestError(
            `The model's chat template dropped or repeated an image (${images.length} sent, ${order.length} rendered); send the images in user messages.`,
            {param: promptName, code: "image_input_not_supported"});
    const tokens: Token[] = [];
    const placed: PromptImage[] = [];
    segments.forEach((segment, at) => {
        // A piece after an image continues the text: no leading space of its own (SentencePiece adds one).
        tokens.push(...segment.tokenize(model.tokenizer, at === 0 ? undefined : "trimLeadingSpace"));
        const image = at < order.length ? images[order[at]!] : undefined;
        for (const part of image?.parts ?? []) {
            if (part.type === "text") {
                tokens.push(...Array.from(part.tokens, (token) => token as Token));
                continue;
            }
            const placeholder = placeholderFor(part.id, part.index);
            placed.push({
                start: tokens.length, positions: part.positions, cells: part.tokens, placeholder,
                chunk: {handle: image!.handle, index: part.index, nonCausal: part.nonCausal}
            });
            for (let position = 0; position < part.positions; position++)
                tokens.push(placeholder);
        }
    });
    return {tokens, images: placed};
}

/**
 * The pieces of the rendered text around its markers (one more than the markers), and which image
 * each marker names, in the order the template rendered them.
 */
function splitAtMarkers(rendered: LlamaText): {segments: LlamaText[], order: number[]} {
    const segments: LlamaText[] = [];
    const order: number[] = [];
    let current: Array<LlamaText["values"][number]> = [];
    for (const value of rendered.values) {
        if (typeof value !== "string") {
            current.push(value);
            continue;
        }
        let from = 0;
        for (const match of value.matchAll(numberedMarker)) {
            if (match.index > from)
                current.push(value.slice(from, match.index));
            segments.push(LlamaText(current));
            current = [];
            order.push(Number(match[1]));
            from = match.index + match[0].length;
        }
        if (from < value.length)
            current.push(value.slice(from));
    }
    segments.push(LlamaText(current));
    return {segments, order};
}

/**
 * A negative token value no vocabulary has, drawn from the image's SHA-256 and the chunk's place
 * in it: two different images at one place differ (but for a 1 in 2^31 chance).
 */
function placeholderFor(imageId: string, chunkIndex: number): Token {
    const digest = createHash("sha256").update(`${imageId}:${chunkIndex}`).digest();
    return -(1 + (digest.readUInt32BE(0) >>> 1)) as Token;
}

/** KV cells the prompt takes: its tokens, plus what M-RoPE images take beyond their positions. What usage counts. */
export function promptCells(prompt: Pick<PreparedPrompt, "tokens" | "images">): number {
    return prompt.tokens.length + (prompt.images ?? []).reduce((extra, image) => extra + image.cells - image.positions, 0);
}

/** Whether a token is an image's placeholder (never handed to the vocabulary). */
export function isImagePlaceholder(token: Token): boolean {
    return token < 0;
}
