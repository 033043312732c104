/** What one tier did since the server started: read by /metrics at a scrape (metrics/promptCacheMetrics.ts). */
export type TierCounters = {
    /** Prompts whose prefix came back from this tier instead of being evaluated. */
    hits: number,
    /** Prompts that looked and found nothing worth restoring here. */
    misses: number,
    restoredTokens: number,
    restoreSeconds: number,
    /** States written to this tier, and their bytes. */
    stores: number,
    storedBytes: number
};

export type TierName = "ram" | "disk";

export function emptyCounters(): TierCounters {
    return {hits: 0, misses: 0, restoredTokens: 0, restoreSeconds: 0, stores: 0, storedBytes: 0};
}

/** A tier's counters and what it holds now. */
export type TierSnapshot = TierCounters & {tier: TierName, bytes: number, entries: number, budgetBytes: number};

/** What the cache holds for one model layout (its `/v1/models` entry's `prompt_cache`). */
export type LayoutUsage = {bytes: number, entries: number};

export type PromptCacheUsage = {ram: LayoutUsage, disk: LayoutUsage};
