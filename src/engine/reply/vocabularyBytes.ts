import type {LlamaModel, Token} from "node-llama-cpp";

/**
 * What a vocabulary's tokens are as bytes, for keeping constrained text valid UTF-8 where
 * llama.cpp's grammar does not: it reads a character's bytes by their bit patterns alone, so it
 * takes bytes no UTF-8 text has (C0, C1, F5–FF) and overlong or out-of-range forms (E0 90 9A), which
 * every decoder turns into one U+FFFD a byte: past a schema's maxLength, and not what was meant.
 */

/** After these lead bytes the next byte has a narrower range than 80–BF (RFC 3629). */
const narrowNext: ReadonlyMap<number, readonly [number, number]> = new Map([
    [0xE0, [0xA0, 0xBF]], [0xED, [0x80, 0x9F]], [0xF0, [0x90, 0xBF]], [0xF4, [0x80, 0x8F]]
]);

export class VocabularyBytes {
    /** Tokens holding a byte no UTF-8 text contains. */
    public readonly invalid: Token[] = [];
    /** Tokens that end in a lead byte of `narrowNext`, and that byte. */
    private readonly endsInNarrowLead = new Map<Token, number>();
    /** Per lead byte of `narrowNext`: tokens whose first byte may not follow it. */
    private readonly barredAfter = new Map<number, Token[]>();

    private constructor(bytesOf: ReadonlyArray<readonly number[] | null>) {
        bytesOf.forEach((bytes, id) => {
            if (bytes == null || bytes.length === 0)
                return;
            const token = id as Token;
            if (bytes.some((byte) => byte === 0xC0 || byte === 0xC1 || byte >= 0xF5))
                this.invalid.push(token);
            const last = bytes.at(-1)!;
            if (narrowNext.has(last))
                this.endsInNarrowLead.set(token, last);
            const first = bytes[0]!;
            for (const [lead, [low, high]] of narrowNext)
                if (first >= 0x80 && first <= 0xBF && (first < low || first > high))
                    this.barred(lead).push(token);
        });
    }

    private barred(lead: number): Token[] {
        let tokens = this.barredAfter.get(lead);
        if (tokens == null)
            this.barredAfter.set(lead, tokens = []);
        return tokens;
    }

    /** Read from the GGUF's token list; byte-level only for the vocabularies whose tokens can split a character. */
    public static of(model: LlamaModel): VocabularyBytes {
        const ggml = (model.fileInfo.metadata as {tokenizer?: {ggml?: {model?: string, tokens?: readonly string[]}}}).tokenizer?.ggml;
        const tokens = ggml?.tokens ?? [];
        switch (ggml?.model) {
            case "llama":
                // SentencePiece byte fallback: one token per byte, written <0xF5>; other pieces are whole characters.
                return new VocabularyBytes(tokens.map((text) => /^<0x[0-9A-F]{2}>$/i.test(text) ? [parseInt(text.slice(3, 5), 16)] : null));
            case "gpt2":
                return new VocabularyBytes(tokens.map(byteLevelBytes));
            default:
                return new VocabularyBytes([]);
        }
    }

    /** The lead byte `token` ends in when the next byte's range is narrow, else undefined. */
    public narrowLeadAtEnd(token: Token | undefined): number | undefined {
        return token == null ? undefined : this.endsInNarrowLead.get(token);
    }

    /** Tokens that may not follow `lead` (their first byte is a continuation outside its range). */
    public barredAfterLead(lead: number): readonly Token[] {
        return this.barredAfter.get(lead) ?? [];
    }
}

/** GPT-2's byte-level BPE writes each byte as a printable character: these bytes as themselves, the rest from U+0100 on. */
const printableBytes = [...range(0x21, 0x7E), ...range(0xA1, 0xAC), ...range(0xAE, 0xFF)];
const byteOfCharacter: ReadonlyMap<number, number> = (() => {
    const map = new Map<number, number>(printableBytes.map((byte) => [byte, byte]));
    let next = 0x100;
    for (let byte = 0; byte < 256; byte++)
        if (!map.has(byte))
            map.set(next++, byte);
    return map;
})();

function byteLevelBytes(text: string): number[] | null {
    const bytes: number[] = [];
    for (const char of text) {
        const byte = byteOfCharacter.get(char.codePointAt(0)!);
        if (byte == null)
            return null; // an added token (special text), not byte-level
        bytes.push(byte);
    }
    return bytes;
}

function range(from: number, to: number): number[] {
    return Array.from({length: to - from + 1}, (_, index) => from + index);
}
