/**
 * Finds cached prefixes by their chained block hashes (blockHashes.ts) without touching their bytes:
 * every entry is listed under each of its blocks' hashes, so a prompt that shares only the first
 * blocks of an entry (an agent's system prompt, then another conversation) still finds it.
 */
export class PrefixIndex<T extends {blockHashes: readonly string[]}> {
    private readonly byHash = new Map<string, Set<T>>();

    public add(item: T): void {
        for (const hash of item.blockHashes) {
            const items = this.byHash.get(hash) ?? new Set<T>();
            items.add(item);
            this.byHash.set(hash, items);
        }
    }

    public remove(item: T): void {
        for (const hash of item.blockHashes) {
            const items = this.byHash.get(hash);
            items?.delete(item);
            if (items?.size === 0)
                this.byHash.delete(hash);
        }
    }

    /**
     * The entries sharing the most whole blocks with a prompt whose hashes are `promptHashes`, and how
     * many blocks that is (0 and none: nothing shared). Hashes chain, so the longest match is found
     * by a binary search over the prompt's blocks.
     */
    public longest(promptHashes: readonly string[]): {blocks: number, items: T[]} {
        let low = 0;
        let high = promptHashes.length;
        while (low < high) {
            const middle = (low + high + 1) >> 1;
            if (this.byHash.has(promptHashes[middle - 1]!))
                low = middle;
            else
                high = middle - 1;
        }
        return {blocks: low, items: low === 0 ? [] : [...this.byHash.get(promptHashes[low - 1]!)!]};
    }

    /** Entries listed under one hash (those holding that whole block and every one before it). */
    public under(hash: string): T[] {
        return [...this.byHash.get(hash) ?? []];
    }
}
