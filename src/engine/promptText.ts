import type {LlamaModel, Token} from "node-llama-cpp";
import type {PreparedPrompt} from "./preparedPrompt.js";
import {pieceBytes} from "./tokenPieces.js";
import {mediaMarker} from "./vision/mediaMarker.js";

/**
 * A prepared prompt as text (/apply-template): its tokens spelled back, special tokens included,
 * so it is exactly what is evaluated, the empty thought a non-thinking reply begins after included.
 * The BOS chatserve puts before a template's text is left out, as llama-server's /apply-template
 * leaves it to tokenization; each image stands as the media marker its template rendered.
 */
export function promptText(model: LlamaModel, prompt: Pick<PreparedPrompt, "tokens" | "images">): string {
    const {bos} = model.tokens;
    const from = model.tokens.shouldPrependBosToken && bos != null && prompt.tokens[0] === bos ? 1 : 0;
    const images = new Map((prompt.images ?? []).map((image) => [image.start, image.positions]));
    const parts: Uint8Array[] = [];
    for (let index = from; index < prompt.tokens.length; index++) {
        const positions = images.get(index);
        if (positions != null) {
            parts.push(new TextEncoder().encode(mediaMarker));
            index += positions - 1;
        } else
            parts.push(pieceBytes(model, prompt.tokens[index] as Token));
    }
    return Buffer.concat(parts).toString("utf8");
}
