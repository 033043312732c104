import type {LlamaModel, Token} from "node-llama-cpp";
import type {PreparedPrompt} from "./preparedPrompt.js";
import {pieceBytes} from "./tokenPieces.js";
import {mediaMarker} from "./vision/mediaMarker.js";

/**
 * A prepared prompt as text (/apply-template): its tokens spelled back, special tokens included,
 * so it is exactly what is evaluated, the empty thought a non-thinking reply begins after included:
 * tokenized again (with the vocabulary's BOS) it gives the same tokens. The BOS chatserve puts
 * before a template's text is left out, as llama-server's /apply-template leaves it to tokenization;
 * each image stands as the media marker its template rendered.
 *
 * A SentencePiece vocabulary puts a space before the text at the start and after each special
 * token as it tokenizes ("<|im_start|>user" holds "▁user"): that space is the tokenizer's, not the
 * template's, and is left out, so the text is the template's own, as llama-server answers it.
 */
export function promptText(model: LlamaModel, prompt: Pick<PreparedPrompt, "tokens" | "images">): string {
    const {bos} = model.tokens;
    const from = model.tokens.shouldPrependBosToken && bos != null && prompt.tokens[0] === bos ? 1 : 0;
    const images = new Map((prompt.images ?? []).map((image) => [image.start, image.positions]));
    const spacePrefix = addsSpacePrefix(model);
    const parts: Uint8Array[] = [];
    let afterSpecial = true;
    for (let index = from; index < prompt.tokens.length; index++) {
        const positions = images.get(index);
        if (positions != null) {
            parts.push(new TextEncoder().encode(mediaMarker));
            index += positions - 1;
            // The text after an image is tokenized apart (imagePrompt.ts), as text after a special token.
            afterSpecial = true;
            continue;
        }
        const token = prompt.tokens[index] as Token;
        const bytes = pieceBytes(model, token);
        const attributes = model.getTokenAttributes(token);
        const special = attributes.control || attributes.userDefined || attributes.unknown;
        parts.push(spacePrefix && afterSpecial && !special && bytes[0] === 0x20 ? bytes.subarray(1) : bytes);
        afterSpecial = special;
    }
    return Buffer.concat(parts).toString("utf8");
}

/** llama.cpp's add_space_prefix: the GGUF's `tokenizer.ggml.add_space_prefix`, else SentencePiece's default (on). */
function addsSpacePrefix(model: LlamaModel): boolean {
    const ggml = model.fileInfo.metadata.tokenizer?.ggml as Record<string, unknown> | undefined;
    return typeof ggml?.add_space_prefix === "boolean" ? ggml.add_space_prefix : model.vocabularyType === "spm";
}
