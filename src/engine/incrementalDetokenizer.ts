import type {Token} from "node-llama-cpp";

export type DetokenizeFn = (tokens: readonly Token[], lastTokens: readonly Token[]) => string;

/**
 * Turns a stream of tokens into a stream of text.
 *
 * A character outside ASCII can be split over several byte tokens; decoding one of them alone yields
 * U+FFFD. Such pieces are held until the character is complete, so clients never see a replacement
 * character that the full decode would not contain. A run of tokens that each finish one character and
 * start the next (rare CJK, emoji sequences) stays held as a whole, as each token's first bytes need the
 * one before, while the characters it completes are sent at once. Bytes that complete nothing for a few
 * tokens are not text: they are let go as they decode. Previous tokens are passed as context because
 * SentencePiece vocabularies decode a leading space differently at the start.
 */
export class IncrementalDetokenizer {
    /** Tokens held without completing a character, and context tokens kept. */
    private static readonly maxHeldTokens = 4;
    /** A run of straddling tokens is let go past this, so one decode never grows without bound. */
    private static readonly maxPendingTokens = 32;
    private readonly pending: Token[] = [];
    private readonly context: Token[] = [];
    /** Characters of the pending tokens' text already sent. */
    private sent = 0;
    private heldWithoutProgress = 0;

    /** `shown`: tokens that detokenize to nothing (control tokens) but read as this text here. */
    public constructor(
        private readonly detokenize: DetokenizeFn, contextTokens: readonly Token[] = [], private readonly shown: ReadonlyMap<Token, string> = new Map()
    ) {
        this.context.push(...contextTokens.slice(-IncrementalDetokenizer.maxHeldTokens));
    }

    public push(token: Token): string {
        const shown = this.shown.get(token);
        if (shown != null) {
            // What is held before it is complete as far as it goes; the token joins the context.
            const held = this.flush();
            this.skip([token]);
            return held + shown;
        }
        this.pending.push(token);
        const text = this.detokenize(this.pending, this.context);
        if (text.endsWith("\uFFFD") && this.pending.length < IncrementalDetokenizer.maxPendingTokens) {
            const complete = text.replace(/\uFFFD+$/, "");
            if (complete.length > this.sent) {
                const news = complete.slice(this.sent);
                this.sent = complete.length;
                this.heldWithoutProgress = 0;
                return news;
            }
            if (++this.heldWithoutProgress < IncrementalDetokenizer.maxHeldTokens)
                return "";
        }
        return this.release(text);
    }

    /** Tokens the client does not see as text (forced template markup) still count as context. */
    public skip(tokens: readonly Token[]): void {
        if (tokens.length > 0)
            this.release("", tokens);
    }

    /** Whatever is still held when generation ends. */
    public flush(): string {
        return this.pending.length === 0 ? "" : this.release(this.detokenize(this.pending, this.context));
    }

    private release(text: string, extraContext: readonly Token[] = []): string {
        this.context.push(...this.pending, ...extraContext);
        this.context.splice(0, Math.max(0, this.context.length - IncrementalDetokenizer.maxHeldTokens));
        this.pending.length = 0;
        const news = text.slice(this.sent);
        this.sent = 0;
        this.heldWithoutProgress = 0;
        return news;
    }
}
