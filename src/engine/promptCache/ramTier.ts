import {sharedPrefix} from "./blockHashes.js";
import {entryBytes, type CacheEntry} from "./cacheEntry.js";
import {PrefixIndex} from "./prefixIndex.js";
import type {LayoutUsage} from "./promptCacheStats.js";

/**
 * The RAM tier: prompt prefixes' KV states kept in host memory within `budgetBytes`, least recently
 * used first out, so that more conversations stay cached than a model has sequences, and a model
 * unloaded to make room for another gets its prompts back by a copy. One tier for every model: an
 * entry is only ever found by prompts of its own layout and partition (their hashes' seed).
 */
export class RamTier {
    /** In use order: the first is the one used least recently. */
    private readonly entries = new Set<CacheEntry>();
    private readonly index = new PrefixIndex<CacheEntry>();
    private heldBytes = 0;

    public constructor(public readonly budgetBytes: number) {}

    public get bytes(): number {
        return this.heldBytes;
    }

    public get count(): number {
        return this.entries.size;
    }

    /** What the entries saved under one layout take (a walk over the entries: the tier holds few, each large). */
    public usage(layout: string): LayoutUsage {
        let bytes = 0;
        let entries = 0;
        for (const entry of this.entries)
            if (entry.layout === layout) {
                bytes += entryBytes(entry);
                entries++;
            }
        return {bytes, entries};
    }

    /** The entry sharing the longest exact prefix with the prompt, marked used; undefined when none shares a whole block. */
    public find(promptHashes: readonly string[], prompt: ArrayLike<number>): {entry: CacheEntry, length: number} | undefined {
        let best: {entry: CacheEntry, length: number} | undefined;
        for (const entry of this.index.longest(promptHashes).items) {
            const length = sharedPrefix(entry.tokens, prompt);
            if (best == null || length > best.length)
                best = {entry, length};
        }
        if (best != null) {
            this.entries.delete(best.entry);
            this.entries.add(best.entry);
        }
        return best;
    }

    /** The longest prefix of `tokens` some entry already holds (0: none): a new entry saying no more is not worth its bytes. */
    public covered(hashes: readonly string[], tokens: ArrayLike<number>): number {
        return this.index.longest(hashes).items.reduce((longest, entry) => Math.max(longest, sharedPrefix(entry.tokens, tokens)), 0);
    }

    /**
     * Keeps `entry`, dropping entries it makes useless (a prefix of its tokens: the same conversation
     * a turn earlier) and then the least recently used until it fits. Returns false when it cannot
     * fit at all; the entries it dropped otherwise.
     */
    public add(entry: CacheEntry): {added: boolean, evicted: number} {
        const size = entryBytes(entry);
        if (size > this.budgetBytes)
            return {added: false, evicted: 0};
        let evicted = 0;
        for (const hash of entry.blockHashes)
            for (const older of this.index.under(hash))
                if (older.tokens.length <= entry.tokens.length && sharedPrefix(older.tokens, entry.tokens) === older.tokens.length)
                    this.remove(older);
        for (const oldest of this.entries) {
            if (this.heldBytes + size <= this.budgetBytes)
                break;
            this.remove(oldest);
            evicted++;
        }
        this.entries.add(entry);
        this.index.add(entry);
        this.heldBytes += size;
        return {added: true, evicted};
    }

    public remove(entry: CacheEntry): void {
        if (!this.entries.delete(entry))
            return;
        this.index.remove(entry);
        this.heldBytes -= entryBytes(entry);
    }

    public clear(): void {
        for (const entry of [...this.entries])
            this.remove(entry);
    }
}
