import type {Token} from "node-llama-cpp";

export type DetokenizeFn = (tokens: readonly Token[], lastTokens: readonly Token[]) => string;

/**
 * Turns a stream of tokens into a stream of text.
 *
 * A character outside ASCII can be split over several byte tokens; decoding one of them alone yields
 * U+FFFD. Such pieces are held (up to a few tokens) until the character is complete, so clients never
 * see a replacement character that the full decode would not contain. Previous tokens are passed as
 * context because SentencePiece vocabularies decode a leading space differently at the start.
 */
export class IncrementalDetokenizer {
    private static readonly maxHeldTokens = 4;
    private readonly pending: Token[] = [];
    private readonly context: Token[] = [];

    public constructor(private readonly detokenize: DetokenizeFn, contextTokens: readonly Token[] = []) {
        this.context.push(...contextTokens.slice(-IncrementalDetokenizer.maxHeldTokens));
    }

    public push(token: Token): string {
        this.pending.push(token);
        const text = this.detokenize(this.pending, this.context);
        if (text.endsWith("\uFFFD") && this.pending.length < IncrementalDetokenizer.maxHeldTokens)
            return "";

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
        return text;
    }
}
