import type {Logger} from "pino";
import {DiskTier} from "./diskTier.js";
import {modelLayout, type ModelLayoutSettings} from "./modelLayout.js";
import {ModelPromptCache} from "./modelPromptCache.js";
import {RamTier} from "./ramTier.js";
import {emptyCounters, type PromptCacheUsage, type TierCounters, type TierName, type TierSnapshot} from "./promptCacheStats.js";

export type PromptCacheSettings = {
    /** The RAM tier's budget; 0: no RAM tier. */
    ramBytes: number,
    /** The disk tier's folder and budget; null: no disk tier. */
    disk: {dir: string, bytes: number} | null
};

/**
 * The server's prompt cache: KV states of prompt prefixes that outlive the sequence that held them,
 * in host memory (RAM tier) and in files (disk tier), shared by every model (each finds only its
 * own layout's entries). Each loaded model uses it through its ModelPromptCache (modelPromptCache.ts
 * says when states are saved and restored); docs/prompt-cache.md explains the whole.
 */
export class PromptCache {
    public readonly ram: RamTier;
    public readonly disk: DiskTier | null;
    public readonly counters: Record<TierName, TierCounters> = {ram: emptyCounters(), disk: emptyCounters()};
    /** Each model's layout as it last loaded, by the path it was loaded from: what `usageFor` counts. */
    private readonly layouts = new Map<string, string>();

    public constructor(settings: PromptCacheSettings, private readonly logger: Logger) {
        this.ram = new RamTier(settings.ramBytes);
        this.disk = settings.disk == null || settings.disk.bytes <= 0 ? null : new DiskTier(settings.disk.dir, settings.disk.bytes, logger);
    }

    public get enabled(): boolean {
        return this.ram.budgetBytes > 0 || this.disk != null;
    }

    /**
     * A model's handle on the cache, its disk folder indexed; a disk that cannot be read leaves it the
     * RAM tier only. `loadedFrom`: the path the server loaded it by (its listing's), for `usageFor`.
     */
    public async forModel(settings: ModelLayoutSettings, loadedFrom: string = settings.model.path): Promise<ModelPromptCache> {
        const layout = modelLayout(settings);
        this.layouts.set(loadedFrom, layout.key);
        let disk = this.disk;
        if (disk != null)
            await disk.open(layout.key, settings).catch((error: unknown) => {
                this.logger.warn({event: "prompt_cache_unreadable", err: error}, `cannot use the prompt cache folder ${disk!.dir}; this model's prompts are cached in RAM only`);
                disk = null;
            });
        return new ModelPromptCache(layout.key, this.ram, disk, this.counters, this.logger);
    }

    /**
     * What each tier holds for the model loaded from `path` (under the layout of its last load: its
     * entries stay after it is unloaded); undefined for a model not loaded with a cache since the start,
     * whose layout (context cells, llama.cpp build) is only known once it loads.
     */
    public usageFor(path: string): PromptCacheUsage | undefined {
        const layout = this.layouts.get(path);
        if (layout == null)
            return undefined;
        return {ram: this.ram.usage(layout), disk: this.disk?.usage(layout) ?? {bytes: 0, entries: 0}};
    }

    /** Each tier's counters and contents, for /metrics. */
    public snapshot(): TierSnapshot[] {
        return [
            {tier: "ram", ...this.counters.ram, bytes: this.ram.bytes, entries: this.ram.count, budgetBytes: this.ram.budgetBytes},
            {tier: "disk", ...this.counters.disk, bytes: this.disk?.bytes ?? 0, entries: this.disk?.count ?? 0, budgetBytes: this.disk?.budgetBytes ?? 0}
        ];
    }

    /** Waits for the disk writes asked for so far (shutdown: states saved at unload reach the disk). */
    public async flush(): Promise<void> {
        await this.disk?.flush();
    }
}
