import type {LlamaContextSequence, Token} from "node-llama-cpp";
import type {Logger} from "pino";
import {heldPartition} from "../cachePartitions.js";
import type {CachePartition} from "../generationOptions.js";
import {blockTokens, chainedBlockHashes, sharedPrefix} from "./blockHashes.js";
import {makeEntry, seedOf, type CacheEntry} from "./cacheEntry.js";
import type {DiskTier} from "./diskTier.js";
import {partitionTag} from "./modelLayout.js";
import type {RamTier} from "./ramTier.js";
import type {TierCounters, TierName} from "./promptCacheStats.js";
import {loadSequenceState, saveSequenceState} from "./sequenceState.js";

/** Shorter prefixes are not kept in RAM: a chat template's opening and a short question evaluate in moments. */
export const ramMinimumTokens = 256;
/** Shorter prefixes are not written to disk: "a few hundred tokens" evaluate faster than a file is read on a slow disk. */
export const diskMinimumTokens = 512;
/** A restore loads a whole entry: worth it only when it saves evaluating at least a block's tokens. */
const minimumRestoreGain = blockTokens;

/**
 * One loaded model's use of the prompt cache. States are saved (the sequence's every token, as
 * llama.cpp saves a sequence) at the moments a prefix would otherwise be lost:
 * - `keepBeforeReuse`: a sequence is leased to a prompt that keeps less of its tokens than it holds
 *   (a fifth conversation on a four-sequence model, or another key's request);
 * - `keepAll`: the model is unloaded (evicted for another, keep-alive over, shutdown);
 * - `keepAfterGeneration`: a long prompt no tier holds half of yet, so that even a crash or a kill
 *   leaves its system prompt on disk; later turns are kept at the two moments above.
 * `restore` then gives a leased sequence the longest cached prefix of its prompt, from RAM or disk,
 * when that beats what the sequence holds. Entries carry the request's cache partition: one key's
 * prompts are never restored for another (their hashes do not even meet).
 */
export class ModelPromptCache {
    public constructor(
        private readonly layout: string,
        private readonly ram: RamTier,
        private readonly disk: DiskTier | null,
        private readonly counters: Record<TierName, TierCounters>,
        private readonly logger: Logger
    ) {}

    /**
     * What the cache does never fails a request: a state that cannot be saved (a full /dev/shm) or
     * restored is a warning, and the prompt is evaluated as without a cache.
     */
    public async safely<T>(what: string, work: () => Promise<T>, otherwise: T): Promise<T> {
        try {
            return await work();
        } catch (error) {
            this.logger.warn({event: "prompt_cache_failed", err: error}, `prompt cache: cannot ${what}`);
            return otherwise;
        }
    }

    public async keepBeforeReuse(sequence: LlamaContextSequence, prompt: readonly Token[], partition: CachePartition | undefined): Promise<void> {
        const held = sequence.contextTokens;
        const holder = heldPartition(sequence);
        const kept = holder === partition ? sharedPrefix(held, prompt) : 0;
        if (held.length >= ramMinimumTokens && held.length - kept >= blockTokens && !this.inRam(held, holder))
            await this.keep(sequence, holder);
    }

    /** Saves a long prompt no tier holds half of yet; undefined (at once) when there is nothing to save. */
    public keepAfterGeneration(sequence: LlamaContextSequence, partition: CachePartition | undefined): Promise<void> | undefined {
        const held = sequence.contextTokens;
        if (held.length < diskMinimumTokens)
            return undefined;
        const hashes = chainedBlockHashes(this.seed(partition), held);
        const onDisk = this.disk?.find(hashes, held)?.length ?? 0;
        if (Math.max(this.ram.covered(hashes, held), onDisk) >= held.length / 2)
            return undefined;
        return this.safely("save a prompt", () => this.keep(sequence, partition), undefined);
    }

    public async keepAll(sequences: readonly LlamaContextSequence[]): Promise<void> {
        for (const sequence of sequences)
            if (sequence.nextTokenIndex >= ramMinimumTokens && !this.inRam(sequence.contextTokens, heldPartition(sequence)))
                await this.keep(sequence, heldPartition(sequence));
    }

    /** Whether the RAM tier holds every one of these tokens already (saved after its generation, and not used since). */
    private inRam(tokens: readonly Token[], partition: CachePartition | undefined): boolean {
        return this.ram.covered(chainedBlockHashes(this.seed(partition), tokens), tokens) >= tokens.length;
    }

    /**
     * Restores into `sequence` (already its request's partition's) the longest cached prefix of
     * `prompt` when it holds at least a block more than the sequence does. Resolves whether it did;
     * a state that fails to load leaves the sequence empty and the prompt to be evaluated.
     */
    public async restore(sequence: LlamaContextSequence, prompt: readonly Token[], partition: CachePartition | undefined): Promise<boolean> {
        if (prompt.length < ramMinimumTokens)
            return false;
        // At most all but the last token: the reply's first token needs the prompt's last logits.
        const wanted = prompt.length - 1;
        const current = sharedPrefix(sequence.contextTokens, prompt);
        if (wanted - current < minimumRestoreGain)
            return false;
        const hashes = chainedBlockHashes(this.seed(partition), prompt);
        const inRam = this.ram.find(hashes, prompt);
        const inRamLength = Math.min(inRam?.length ?? 0, wanted);
        const onDisk = this.disk?.find(hashes, prompt);
        const onDiskLength = Math.min(onDisk?.length ?? 0, wanted);
        // RAM first, unless the disk holds more of the prompt.
        if (onDisk != null && onDiskLength - current >= minimumRestoreGain && onDiskLength > inRamLength) {
            const entry = await this.disk!.read(onDisk.record);
            const length = entry == null ? 0 : Math.min(sharedPrefix(entry.tokens, prompt), wanted);
            if (entry != null && length - current >= minimumRestoreGain && await this.load(sequence, entry, "disk", length)) {
                this.ram.add(entry);
                this.counters.ram.misses++;
                return true;
            }
        }
        if (inRam != null && inRamLength - current >= minimumRestoreGain && await this.load(sequence, inRam.entry, "ram", inRamLength))
            return true;
        this.counters.ram.misses++;
        if (this.disk != null)
            this.counters.disk.misses++;
        return false;
    }

    private async load(sequence: LlamaContextSequence, entry: CacheEntry, tier: TierName, length: number): Promise<boolean> {
        const started = performance.now();
        try {
            await loadSequenceState(sequence, entry.state, entry.tokens);
        } catch {
            this.ram.remove(entry);
            return false;
        }
        const counters = this.counters[tier];
        counters.hits++;
        counters.restoredTokens += length;
        counters.restoreSeconds += (performance.now() - started) / 1000;
        return true;
    }

    /** Saves what `sequence` holds as `partition`'s: into RAM, and in the background to disk when it is long enough. */
    private async keep(sequence: LlamaContextSequence, partition: CachePartition | undefined): Promise<void> {
        if (this.ram.budgetBytes <= 0 && (this.disk == null || sequence.nextTokenIndex < diskMinimumTokens))
            return;
        const tokens = Int32Array.from(sequence.contextTokens);
        const entry = makeEntry(this.layout, partitionTag(partition), tokens, await saveSequenceState(sequence));
        if (this.ram.add(entry).added) {
            this.counters.ram.stores++;
            this.counters.ram.storedBytes += entry.state.length;
        }
        if (this.disk != null && tokens.length >= diskMinimumTokens) {
            this.counters.disk.stores++;
            this.counters.disk.storedBytes += entry.state.length;
            void this.disk.write(entry);
        }
    }

    private seed(partition: CachePartition | undefined): string {
        return seedOf(this.layout, partitionTag(partition));
    }
}
