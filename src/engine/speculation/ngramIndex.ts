import type {Token} from "node-llama-cpp";

/**
 * Where each run of `n` tokens occurs in a growing list of tokens, so that the tokens which followed
 * the latest run elsewhere can be proposed as what follows it now: draftless lookup decoding
 * (llama.cpp's `lookup`, vLLM's n-gram speculation). Indexing a token costs one map update, looking
 * up one map read: a prompt of thousands of tokens indexes in about a millisecond. Runs are keyed
 * by a number hashed from their tokens (a string key cost 5× as much, every request's whole prompt
 * each time), and a lookup checks each candidate's tokens, so two runs that hash alike never mix.
 */
export class NgramIndex {
    public readonly tokens: Token[] = [];
    /** Each run's hash → the positions right after its occurrences, in order. */
    private readonly after = new Map<number, number[]>();

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
        const run = context.slice(-this.n);
        const positions = this.after.get(hashRun(run, this.n)) ?? [];
        return positions.filter((position) => position < this.tokens.length && this.endsWith(position, run)).reverse();
    }

    /** Up to `count` tokens from `position` on. */
    public from(position: number, count: number): Token[] {
        return this.tokens.slice(position, position + count);
    }

    private key(end: number): number {
        return hashRun(this.tokens.slice(end - this.n, end), this.n);
    }

    /** Whether the tokens before `end` are `run`. */
    private endsWith(end: number, run: readonly Token[]): boolean {
        return run.every((token, index) => this.tokens[end - run.length + index] === token);
    }
}

/** The hash of a run of tokens, its last `n` (FNV-1a over their ids): lookup's index and the shared pool key runs by it. */
export function hashRun(run: readonly Token[], n: number): number {
    let hash = 0x811c9dc5;
    for (let index = run.length - n; index < run.length; index++)
        hash = Math.imul(hash ^ run[index]!, 0x01000193);
    return hash >>> 0;
}
