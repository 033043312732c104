import fs from "node:fs/promises";
import path from "node:path";
import type {Logger} from "pino";
import {sharedPrefix} from "./blockHashes.js";
import {CorruptEntryError, decodeEntry, encodeEntry, type CacheEntry} from "./cacheEntry.js";
import {cacheFileExtension, cacheFilePath, cacheFileSizes, readIndexedFile, removeIfStaleTemp, writeWholeFile, type FileSize} from "./diskFiles.js";
import {PrefixIndex} from "./prefixIndex.js";
import type {LayoutUsage} from "./promptCacheStats.js";

/**
 * A cache file as the index knows it from its header and tokens: enough to find it and to measure
 * exactly how much of a prompt it holds (entries sharing every whole block of a prompt can differ
 * in its last part: another image, another question), never its state.
 */
type DiskRecord = {file: string, layout: string, partition: string, blockHashes: string[], tokens: Int32Array, bytes: number, lastUsed: number};

/**
 * The disk tier: prompt prefixes' states in files under `dir`, one folder per model layout
 * (modelLayout.ts), that outlive the process. Each model's folder is indexed from its files'
 * headers when the model loads; after that, a prompt's longest cached prefix is found from hashes
 * alone and only a hit reads a file. Writes are whole files renamed into place (two servers may
 * share the folder); a file that fails its checks is removed with a warning. Over `budgetBytes`,
 * the least recently used files go first (a hit touches its file's time, so the order survives restarts).
 * The files' own reading and writing is diskFiles.ts's.
 */
export class DiskTier {
    private readonly records = new Map<string, DiskRecord>();
    private readonly index = new PrefixIndex<DiskRecord>();
    private readonly opened = new Map<string, Promise<void>>();
    /** Every cache file's size, all layouts, for the budget (stat only, nothing read). */
    private sizes: Promise<Map<string, FileSize>> | undefined;
    private writing: Promise<void> = Promise.resolve();
    /** The last use time handed out: uses within one millisecond still come in order. */
    private lastTime = 0;

    public constructor(public readonly dir: string, public readonly budgetBytes: number, private readonly logger: Logger) {}

    /** Indexes one layout's folder (once): its files' headers. */
    public open(layout: string, description: object): Promise<void> {
        const opening = this.opened.get(layout) ?? this.indexFolder(layout, description);
        this.opened.set(layout, opening);
        return opening;
    }

    /** The file holding the longest exact prefix of `prompt` (of those sharing its most whole blocks), and that length. */
    public find(promptHashes: readonly string[], prompt: ArrayLike<number>): {record: DiskRecord, length: number} | undefined {
        let best: {record: DiskRecord, length: number} | undefined;
        for (const record of this.index.longest(promptHashes).items) {
            const length = sharedPrefix(record.tokens, prompt);
            if (best == null || length > best.length || (length === best.length && record.lastUsed > best.record.lastUsed))
                best = {record, length};
        }
        return best;
    }

    /** The whole entry, checked; undefined when the file is gone or failed its checks (then it is removed). */
    public async read(record: DiskRecord): Promise<CacheEntry | undefined> {
        try {
            const entry = decodeEntry(await fs.readFile(record.file), record.layout);
            if (entry.partition !== record.partition)
                throw new CorruptEntryError("its partition changed since it was indexed");
            record.lastUsed = this.now();
            await fs.utimes(record.file, new Date(), new Date(record.lastUsed)).catch(() => undefined);
            const size = (await this.allSizes()).get(record.file);
            if (size != null)
                size.lastUsed = record.lastUsed;
            return entry;
        } catch (error) {
            await this.discard(record, error);
            return undefined;
        }
    }

    public get bytes(): number {
        let total = 0;
        for (const record of this.records.values())
            total += record.bytes;
        return total;
    }

    public get count(): number {
        return this.records.size;
    }

    /**
     * What the files of one layout take, as indexed (nothing is read): a layout whose folder was not
     * opened yet (no model of it loaded since the start) counts none.
     */
    public usage(layout: string): LayoutUsage {
        let bytes = 0;
        let entries = 0;
        for (const record of this.records.values())
            if (record.layout === layout) {
                bytes += record.bytes;
                entries++;
            }
        return {bytes, entries};
    }

    /** Writes `entry` in the background (one write at a time), then keeps the folder within its budget. */
    public write(entry: CacheEntry): Promise<void> {
        this.writing = this.writing.then(() => this.writeNow(entry)).catch((error: unknown) =>
            this.logger.warn({event: "prompt_cache_write_failed", err: error}, `cannot write a prompt cache file in ${this.dir}`));
        return this.writing;
    }

    /** Resolves once every write asked for so far is done (shutdown). */
    public flush(): Promise<void> {
        return this.writing;
    }

    private async writeNow(entry: CacheEntry): Promise<void> {
        const folder = path.join(this.dir, entry.layout);
        const file = cacheFilePath(folder, entry);
        const bytes = encodeEntry(entry);
        await writeWholeFile(folder, file, bytes);
        const record: DiskRecord = {file, layout: entry.layout, partition: entry.partition, blockHashes: entry.blockHashes, tokens: entry.tokens, bytes: bytes.length, lastUsed: this.now()};
        this.forget(file);
        this.records.set(file, record);
        this.index.add(record);
        (await this.allSizes()).set(file, {bytes: record.bytes, lastUsed: record.lastUsed});
        await this.keepWithinBudget();
    }

    private async keepWithinBudget(): Promise<void> {
        const sizes = await this.allSizes();
        let total = [...sizes.values()].reduce((sum, size) => sum + size.bytes, 0);
        const oldestFirst = [...sizes.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
        for (const [file, size] of oldestFirst) {
            if (total <= this.budgetBytes)
                break;
            await fs.rm(file, {force: true});
            sizes.delete(file);
            this.forget(file);
            total -= size.bytes;
        }
    }

    private async indexFolder(layout: string, description: object): Promise<void> {
        const folder = path.join(this.dir, layout);
        await fs.mkdir(folder, {recursive: true});
        // For whoever looks in the folder: which model and settings its files are for.
        await fs.writeFile(path.join(folder, "layout.json"), JSON.stringify(description, null, 2) + "\n").catch(() => undefined);
        for (const name of await fs.readdir(folder)) {
            const file = path.join(folder, name);
            if (name.startsWith(".tmp-"))
                await removeIfStaleTemp(file);
            else if (name.endsWith(cacheFileExtension))
                await this.indexFile(file, layout);
        }
    }

    private async indexFile(file: string, layout: string): Promise<void> {
        const record: DiskRecord = {file, layout, partition: "", blockHashes: [], tokens: new Int32Array(0), bytes: 0, lastUsed: 0};
        try {
            Object.assign(record, await readIndexedFile(file, layout));
            this.forget(file);
            this.records.set(file, record);
            this.index.add(record);
        } catch (error) {
            await this.discard(record, error);
        }
    }

    private async discard(record: DiskRecord, error: unknown): Promise<void> {
        this.forget(record.file);
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
            return;
        this.logger.warn({event: "prompt_cache_file_skipped", file: record.file, reason: (error as Error).message},
            `skipped and removed a prompt cache file: ${(error as Error).message}`);
        await fs.rm(record.file, {force: true}).catch(() => undefined);
        (await this.allSizes()).delete(record.file);
    }

    private now(): number {
        this.lastTime = Math.max(Date.now(), this.lastTime + 1);
        return this.lastTime;
    }

    private forget(file: string): void {
        const record = this.records.get(file);
        if (record == null)
            return;
        this.records.delete(file);
        this.index.remove(record);
    }

    /** Read once, then kept up to date by this process's own writes and removals. */
    private allSizes(): Promise<Map<string, FileSize>> {
        this.sizes ??= cacheFileSizes(this.dir);
        return this.sizes;
    }
}
