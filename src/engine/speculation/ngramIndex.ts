import type {Token} from "node-llama-cpp";

/**
 * Where each run of `n` tokens occurs in a growing list of tokens, so that the tokens which followed
 * the latest run elsewhere can be proposed as what follows it now: draftless lookup decoding
 * (llama.cpp's `lookup`, vLLM's n-gram speculation). Indexing a token costs one map update, looking
 * up one map read: a prompt of thousands of tokens indexes in about a millisecond.
 */
export class NgramIndex {
    public readonly tokens: Token[] = [];
    /** Each run's key → the positions right after its occurrences, in order. */
    private readonly after = new Map<string, number[]>();

    public constructor(private readonly n: number, tokens: readonly Token[] = []) {
        this.append(tokens);
    }

    public append(tokens: readonly Token[]): void {
        for (const token of tokens) {
            this.tokens.push(token);
            const end = this.tokens.length;
            if (end < this.n)
                continue;
            const key = this.key(end);
            const positions = this.after.get(key);
            if (positions == null)
                this.after.set(key, [end]);
            else
                positions.push(end);
        }
    }

    /**
     * The positions right after the earlier occurrences of `context`'s last `n` tokens, latest first
     * (the occurrence that is `context`'s own end, in a list that ends with it, is left out: nothing follows it yet).
     */
    public occurrences(context: readonly Token[]): number[] {
        if (context.length < this.n)
            return [];
        const positions = this.after.get(context.slice(-this.n).join(",")) ?? [];
        return positions.filter((position) => position < this.tokens.length).reverse();
    }

    /** Up to `count` tokens from `position` on. */
    public from(position: number, count: number): Token[] {
        return this.tokens.slice(position, position + count);
    }

    private key(end: number): string {
        return this.tokens.slice(end - this.n, end).join(",");
    }
}
