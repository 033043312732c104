import type {HeaderValue} from "./ggufBounds.js";

/**
 * What a model's vocabulary makes llama.cpp abort on, at load or when a request is tokenized
 * (llama-vocab.cpp as node-llama-cpp 3.22.1 bundles it). Each returns the reason, or undefined for a
 * vocabulary llama.cpp loads and tokenizes with. The BOS, EOS and SEP asserts of tokenize() need
 * nothing here: they only run when llama.cpp adds the special tokens itself, which neither
 * node-llama-cpp (it adds BOS itself) nor our image path asks for; an id out of range is dropped at load.
 */

/**
 * load(): `GGML_ASSERT(id_to_token.size() == token_to_id.size())`: every token's text must be
 * unique. An empty token is renamed `[EMPTY_<id>]` first, which may meet a real one.
 */
export function duplicateTokenProblem(tokens: readonly string[]): string | undefined {
    const seen = new Map<string, number>();
    for (let id = 0; id < tokens.length; id++) {
        const text = tokens[id] === "" ? `[EMPTY_${id}]` : tokens[id]!;
        const first = seen.get(text);
        if (first != null)
            return `its vocabulary lists the token ${JSON.stringify(readable(text))} twice (ids ${first} and ${id}), which makes llama.cpp abort`;
        seen.set(text, id);
    }
    return undefined;
}

/**
 * A SentencePiece vocabulary (`tokenizer.ggml.model` "llama") spells a character it has no token for
 * as its UTF-8 bytes, each the token `<0xXX>` or else the byte itself as a one-byte token; with
 * neither, byte_to_token's `token_to_id.at()` throws out of the tokenizer, which nothing catches, and
 * the process aborts on the first request holding such a character (tried: the tiny chat model
 * without its 256 byte tokens, on "é"). Every byte valid UTF-8 text can hold is needed, but the
 * space, which SentencePiece turns into "▁" first. Real SentencePiece vocabularies have all 256.
 */
export function missingByteTokenProblem(tokens: readonly string[]): string | undefined {
    const has = new Set(tokens);
    const missing: number[] = [];
    for (let byte = 0; byte < 256; byte++) {
        if (byte === 0x20 || !canAppearInUtf8(byte))
            continue;
        const hex = `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`;
        // The fallback is the byte as a C string, so byte 0 (an empty string) has none.
        if (!has.has(hex) && !(byte !== 0 && has.has(String.fromCharCode(byte))))
            missing.push(byte);
    }
    if (missing.length === 0)
        return undefined;
    const named = missing.slice(0, 4).map((byte) => `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`).join(", ");
    return `its SentencePiece vocabulary has no token for ${missing.length} byte${missing.length === 1 ? "" : "s"} (${named}${missing.length > 4 ? ", …" : ""}), ` +
        "so llama.cpp aborts on a request holding a character it cannot spell";
}

/**
 * A WordPiece vocabulary (`tokenizer.ggml.model` "bert") has no byte tokens: llama.cpp spells each
 * token out as it loads the vocabulary, and token_to_byte() aborts on a token typed as a byte
 * (type 6) in one (`GGML_ABORT("fatal error")`; tried: the tiny chat model's vocabulary as "bert").
 */
export function wordPieceByteTokenProblem(types: HeaderValue | undefined): string | undefined {
    const id = Array.isArray(types) ? types.indexOf(byteTokenType) : -1;
    return id < 0 ? undefined : `its WordPiece vocabulary types token ${id} as a byte, which makes llama.cpp abort`;
}

/** llama_token_type's LLAMA_TOKEN_TYPE_BYTE. */
const byteTokenType = 6;

/** UTF-8 never holds 0xC0, 0xC1 (overlong forms) or 0xF5 to 0xFF (past U+10FFFF). */
function canAppearInUtf8(byte: number): boolean {
    return byte < 0xC0 || (byte >= 0xC2 && byte <= 0xF4);
}

/** The tokens as llama.cpp reads them, or undefined for a key it refuses itself (not a string array). */
export function tokenTexts(tokens: HeaderValue | undefined): string[] | undefined {
    if (!Array.isArray(tokens) || tokens.some((token) => typeof token !== "string"))
        return undefined;
    return tokens as string[];
}

/** A token's bytes (read as latin1, one character a byte) as the UTF-8 text they hold. */
function readable(latin1: string): string {
    return Buffer.from(latin1, "latin1").toString("utf8");
}
