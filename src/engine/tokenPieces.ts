import type {LlamaModel, Token} from "node-llama-cpp";

/**
 * A token's bytes as llama.cpp's `token_to_piece` spells them with special tokens shown and no
 * space stripped: what llama-server's /tokenize `with_pieces` and /detokenize are made of.
 *
 * Why not node-llama-cpp's detokenize, token by token: it goes through `llama_detokenize`, which
 * drops a SentencePiece vocabulary's leading space and "cleans" spaces before punctuation in most
 * BPE and WordPiece vocabularies, and it hands back a JS string, in which a byte-fallback token (half
 * of an emoji) has already become U+FFFD. The vocabulary's own text and attributes say it all.
 */
export function pieceBytes(model: LlamaModel, token: Token): Uint8Array {
    const text = vocabularyText(model)[token] ?? "";
    const attributes = model.getTokenAttributes(token);
    if (attributes.control || attributes.unknown || attributes.userDefined)
        return utf8(text);
    if (attributes.byte)
        // `<0x41>`: SentencePiece's byte fallback, which some BPE vocabularies (Gemma 4's) use too.
        return /^<0x[0-9A-Fa-f]{2}>$/.test(text) ? Uint8Array.of(parseInt(text.slice(3, 5), 16)) : byteLevelBytes(text);
    if (!attributes.normal)
        return new Uint8Array(0);
    if (model.vocabularyType === "bpe" && !escapesWhitespace(model))
        return byteLevelBytes(text);
    return utf8(text.replaceAll("\u2581", " "));
}

/** A piece as llama-server writes it: a string when its bytes are whole UTF-8, else the bytes themselves. */
export function pieceOf(model: LlamaModel, token: Token): string | number[] {
    const bytes = pieceBytes(model, token);
    try {
        return strictUtf8.decode(bytes);
    } catch {
        return [...bytes];
    }
}

/** llama-server's /detokenize: the pieces' bytes one after another, read as UTF-8 (what is not becomes U+FFFD, as its JSON writer does). */
export function piecesText(model: LlamaModel, tokens: readonly Token[]): string {
    return Buffer.concat(tokens.map((token) => pieceBytes(model, token))).toString("utf8");
}

function vocabularyText(model: LlamaModel): readonly string[] {
    return model.fileInfo.metadata.tokenizer.ggml.tokens;
}

/** BPE pre-tokenizers whose vocabulary writes spaces as ▁ (llama-vocab.cpp's escape_whitespaces) rather than byte-level. */
const whitespaceEscapingBpe = new Set(["gemma4", "granite-embed-multi-311m", "sarvam-moe"]);

function escapesWhitespace(model: LlamaModel): boolean {
    const pre = (model.fileInfo.metadata.tokenizer.ggml as Record<string, unknown>).pre;
    return typeof pre === "string" && whitespaceEscapingBpe.has(pre);
}

/**
 * GPT-2's byte-level text back to bytes: each byte was written as one character, the printable
 * ones as themselves and the rest as U+0100 on, in order (llama.cpp's `unicode_utf8_to_byte`).
 * A character outside that table is kept as its UTF-8.
 */
function byteLevelBytes(text: string): Uint8Array {
    const bytes: number[] = [];
    for (const character of text) {
        const byte = byteOfCharacter.get(character.codePointAt(0)!);
        if (byte == null)
            bytes.push(...utf8(character));
        else
            bytes.push(byte);
    }
    return Uint8Array.from(bytes);
}

const byteOfCharacter: ReadonlyMap<number, number> = (() => {
    const printable = (byte: number) => (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
    const map = new Map<number, number>();
    let shifted = 0;
    for (let byte = 0; byte < 256; byte++)
        map.set(printable(byte) ? byte : 256 + shifted++, byte);
    return map;
})();

function utf8(text: string): Uint8Array {
    return new TextEncoder().encode(text);
}

/** Fails on bytes that are not whole UTF-8; keeps a leading U+FEFF, which is a piece's own text. */
const strictUtf8 = new TextDecoder("utf-8", {fatal: true, ignoreBOM: true});
