import type {Token} from "node-llama-cpp";
import {RunTable} from "./runTable.js";

/**
 * Where each run of `n` tokens occurs in a growing list of tokens, so that the tokens which followed
 * the latest run elsewhere can be proposed as what follows it now: draftless lookup decoding
 * (llama.cpp's `lookup`, vLLM's n-gram speculation). Every request indexes its whole prompt, so
 * indexing is the cost that matters: each position links back to the previous position whose run
 * hashed alike (one table write and one array push per token, nothing allocated per run: runTable.ts), and a
 * lookup walks that chain, latest first, checking each candidate's tokens so two runs that hash
 * alike never mix. A prompt of 100,000 tokens indexes in a few milliseconds.
 */
export class NgramIndex {
    public readonly tokens: Token[];
    /** A run's hash → the position right after its latest occurrence (sized for the prompt, and a reply of some length). */
    private readonly latest: RunTable;
    /** Position right after a run → the position right after the previous run of the same hash (−1: none); indexed by position − n. */
    private readonly earlier: number[] = [];

    public constructor(private readonly n: number, tokens: readonly Token[] = []) {
        // One copy of the prompt (token by token, its array grew some 60 times for 100,000 tokens).
        this.tokens = tokens.slice();
        this.latest = new RunTable(tokens.length + 1024);
        this.indexRuns(0);
    }

    public append(tokens: readonly Token[]): void {
        const start = this.tokens.length;
        for (const token of tokens)
            this.tokens.push(token);
        this.indexRuns(start);
    }

    /**
     * The positions right after the earlier occurrences of `context`'s last `n` tokens, latest first
     * (the occurrence that is `context`'s own end, in a list that ends with it, is left out: nothing follows it yet).
     */
    public occurrences(context: readonly Token[], limit = Infinity): number[] {
        const found: number[] = [];
        if (context.length < this.n)
            return found;
        let position = this.latest.get(hashRunAt(context, context.length, this.n));
        for (; position >= 0 && found.length < limit; position = this.earlier[position - this.n]!)
            if (position < this.tokens.length && this.endsWith(position, context))
                found.push(position);
        return found;
    }

    /** Indexes the runs that end after `start`. */
    private indexRuns(start: number): void {
        for (let end = Math.max(start + 1, this.n); end <= this.tokens.length; end++)
            this.earlier.push(this.latest.swap(hashRunAt(this.tokens, end, this.n), end));
    }

    /** Up to `count` tokens from `position` on. */
    public from(position: number, count: number): Token[] {
        return this.tokens.slice(position, position + count);
    }

    /** Whether the `n` tokens before `end` are `context`'s last `n`. */
    private endsWith(end: number, context: readonly Token[]): boolean {
        for (let index = 1; index <= this.n; index++)
            if (this.tokens[end - index] !== context[context.length - index])
                return false;
        return true;
    }
}

/** The hash of the `n` tokens of `tokens` before `end` (FNV-1a over their ids), read in place: lookup's index and the shared pool key runs by it. */
export function hashRunAt(tokens: readonly Token[], end: number, n: number): number {
    let hash = 0x811c9dc5;
    for (let index = end - n; index < end; index++)
        hash = Math.imul(hash ^ tokens[index]!, 0x01000193);
    return hash >>> 0;
}
