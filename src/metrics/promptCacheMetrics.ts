import {Counter, Gauge, type Registry} from "prom-client";
import type {TierSnapshot} from "../engine/promptCache/promptCacheStats.js";

const prefix = "chatserve:";

/**
 * The prompt cache's metrics, per tier (`tier="ram"` or `"disk"`), read from the cache at each scrape:
 * hits and misses (prompts restored from the tier, and prompts that looked there in vain), tokens
 * restored and the seconds restoring took, states stored and their bytes; and what each tier holds
 * now (bytes, entries) against its budget. The counters only grow: they are the cache's own tallies.
 */
export function registerPromptCacheMetrics(registry: Registry, snapshot: () => TierSnapshot[]): void {
    const metric = (kind: "counter" | "gauge", name: string, help: string, value: (tier: TierSnapshot) => number) => {
        const collect = function (this: Counter<"tier"> | Gauge<"tier">) {
            this.reset();
            for (const tier of snapshot())
                if (this instanceof Gauge)
                    this.set({tier: tier.tier}, value(tier));
                else
                    this.inc({tier: tier.tier}, value(tier));
        };
        const options = {name: prefix + name, help, labelNames: ["tier"] as const, registers: [registry], collect};
        return kind === "counter" ? new Counter(options) : new Gauge(options);
    };
    metric("counter", "prompt_cache_hits_total", "Prompts whose cached prefix was restored from this tier instead of evaluated.", (tier) => tier.hits);
    metric("counter", "prompt_cache_misses_total", "Prompts that looked in this tier for a prefix worth restoring and found none.", (tier) => tier.misses);
    metric("counter", "prompt_cache_restored_tokens_total", "Prompt tokens restored from this tier.", (tier) => tier.restoredTokens);
    metric("counter", "prompt_cache_restore_seconds_total", "Time spent restoring prefixes from this tier (reading, checking and loading their state).", (tier) => tier.restoreSeconds);
    metric("counter", "prompt_cache_stores_total", "Prefixes' states stored in this tier.", (tier) => tier.stores);
    metric("counter", "prompt_cache_stored_bytes_total", "Bytes of the states stored in this tier.", (tier) => tier.storedBytes);
    metric("gauge", "prompt_cache_bytes", "Bytes this tier holds now.", (tier) => tier.bytes);
    metric("gauge", "prompt_cache_entries", "Prefixes this tier holds now.", (tier) => tier.entries);
    metric("gauge", "prompt_cache_budget_bytes", "Bytes this tier may hold (0: the tier is off).", (tier) => tier.budgetBytes);
}
