import type {Token} from "node-llama-cpp";
import {PoolWriter, type LookupPool} from "./lookupPool.js";
import {NgramIndex} from "./ngramIndex.js";

/** Where a draft came from, as /metrics labels it ("draft": the model's draft model, draftModelSpeculation.ts, which drafts apart from the sources here). */
export type DraftSourceName = "prediction" | "lookup" | "pool" | "draft";

/** Proposes the tokens that may come next in a reply, and follows the reply as it grows. */
export interface DraftSource {
    readonly name: DraftSourceName,
    /** Up to `count` tokens it expects next (none: it has no guess here). */
    propose(count: number): Token[],
    /** The reply grew by these tokens (sampled, whether or not they were drafted). */
    observe(tokens: readonly Token[]): void
}

/** How many tokens must agree before lookup claims to know where the reply is (llama.cpp's lookup uses 3 too). */
const runLength = 3;

/**
 * Draftless lookup: the prompt and the reply so far, searched for the reply's last tokens; what
 * followed their latest earlier occurrence is the guess. Pays where replies repeat what they read
 * (an edited file, a quoted function, a list that restates a question).
 */
export class LookupDrafts implements DraftSource {
    public readonly name = "lookup";
    private readonly index: NgramIndex;

    public constructor(prompt: readonly Token[]) {
        this.index = new NgramIndex(runLength, prompt);
    }

    public propose(count: number): Token[] {
        const [latest] = this.index.occurrences(this.index.tokens, 1);
        return latest == null ? [] : this.index.from(latest, count);
    }

    public observe(tokens: readonly Token[]): void {
        this.index.append(tokens);
    }
}

/**
 * Lookup in the model's pool (speculation/lookupPool.ts): what followed the reply's last tokens in
 * the texts other requests (of the same cache partition) read and wrote, as llama-server's
 * `ngram-mod`. This generation's prompt and reply are added to the pool as they come, for the next.
 */
export class PoolDrafts implements DraftSource {
    public readonly name = "pool";
    private readonly writer: PoolWriter;

    public constructor(private readonly pool: LookupPool, prompt: readonly Token[]) {
        this.writer = new PoolWriter(pool);
        this.writer.append(prompt);
    }

    public propose(count: number): Token[] {
        return this.pool.propose(this.writer.tail, count);
    }

    public observe(tokens: readonly Token[]): void {
        this.writer.append(tokens);
    }
}
