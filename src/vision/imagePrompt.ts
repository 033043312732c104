import {createHash} from "node:crypto";
import {LlamaText, type LlamaModel, type Token} from "node-llama-cpp";
import {BadRequestError} from "../errors.js";
import type {PreparedPrompt, PromptImage} from "../engine/types.js";
import {mediaMarker} from "./mediaMarker.js";
import type {TokenizedImage} from "./nativeVision.js";

/**
 * A rendered chat prompt with images: the template saw each image as the media marker; the text
 * between markers is tokenized piece by piece (as llama-server's mtmd_tokenize does), and each
 * marker gives way to its image's parts: the projector's own wrapper tokens (`<start_of_image>`) and
 * one placeholder per position the image takes.
 */
export function tokenizeWithImages(model: LlamaModel, rendered: LlamaText, images: readonly TokenizedImage[]): {tokens: Token[], images: PromptImage[]} {
    const segments = splitAtMarkers(rendered);
    if (segments.length !== images.length + 1)
        throw new BadRequestError(
            `The model's chat template dropped or repeated an image (${images.length} sent, ${segments.length - 1} rendered); send the images in user messages.`,
            {param: "messages", code: "image_input_not_supported"});
    const tokens: Token[] = [];
    const placed: PromptImage[] = [];
    segments.forEach((segment, index) => {
        // A piece after an image continues the text: no leading space of its own (SentencePiece adds one).
        tokens.push(...segment.tokenize(model.tokenizer, index === 0 ? undefined : "trimLeadingSpace"));
        const image = images[index];
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

/** The pieces of the rendered text around its markers: one more than the markers. */
function splitAtMarkers(rendered: LlamaText): LlamaText[] {
    const segments: LlamaText[] = [];
    let current: Array<LlamaText["values"][number]> = [];
    for (const value of rendered.values) {
        if (typeof value !== "string") {
            current.push(value);
            continue;
        }
        value.split(mediaMarker).forEach((piece, index) => {
            if (index > 0) {
                segments.push(LlamaText(current));
                current = [];
            }
            if (piece !== "")
                current.push(piece);
        });
    }
    segments.push(LlamaText(current));
    return segments;
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
