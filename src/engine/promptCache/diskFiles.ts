import {createHash, randomBytes} from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import {CorruptEntryError, decodeHeader, fixedPrefixBytes, headerLength, type CacheEntry} from "./cacheEntry.js";

/**
 * The disk tier's files themselves (diskTier.ts decides which to keep): how one is named, written
 * and read far enough to be indexed, and what all of them take. Kept apart so the tier reads as
 * policy (what to find, keep and drop) while the byte-level care lives here: whole files renamed
 * into place, and headers read without the state behind them.
 */

export const cacheFileExtension = ".kvcache";
/** Another process's half-written file this old is a crashed writer's: removed. */
const staleTempMs = 60 * 60 * 1000;

/** What indexing needs of a file: its header and tokens, its size and last use; never its state. */
export type IndexedFile = {partition: string, blockHashes: string[], tokens: Int32Array, bytes: number, lastUsed: number};

/** A cache file's size and last use (its modification time), for the budget. */
export type FileSize = {bytes: number, lastUsed: number};

/** Where `entry` goes in `folder`: named by all its tokens (and partition), so two prefixes differing only after their last whole block are two files. */
export function cacheFilePath(folder: string, entry: CacheEntry): string {
    const name = createHash("sha256").update(entry.partition).update(new Uint8Array(entry.tokens.buffer, entry.tokens.byteOffset, entry.tokens.byteLength)).digest("hex").slice(0, 32);
    return path.join(folder, `${name}-${entry.tokens.length}${cacheFileExtension}`);
}

/** Writes `bytes` to a temporary file renamed onto `file`: another server sharing the folder never reads half a file. */
export async function writeWholeFile(folder: string, file: string, bytes: Uint8Array): Promise<void> {
    await fs.mkdir(folder, {recursive: true});
    const temp = path.join(folder, `.tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
    try {
        await fs.writeFile(temp, bytes);
        await fs.rename(temp, file);
    } finally {
        await fs.rm(temp, {force: true});
    }
}

/** Removes a half-written file (`.tmp-…`) old enough to be a crashed writer's; a younger one may still be being written. */
export async function removeIfStaleTemp(file: string): Promise<void> {
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat != null && Date.now() - stat.mtimeMs > staleTempMs)
        await fs.rm(file, {force: true});
}

/** Reads a file's header and tokens; throws (CorruptEntryError, or the file system's) when it is not an entry of `layout`. */
export async function readIndexedFile(file: string, layout: string): Promise<IndexedFile> {
    const handle = await fs.open(file, "r");
    try {
        const stat = await handle.stat();
        const prefix = Buffer.alloc(fixedPrefixBytes);
        await handle.read(prefix, 0, prefix.length, 0);
        const head = Buffer.alloc(fixedPrefixBytes + headerLength(prefix));
        await handle.read(head, 0, head.length, 0);
        const header = decodeHeader(head);
        if (header.layout !== layout)
            throw new CorruptEntryError("it belongs to another model or other settings");
        if (stat.size < head.length + header.tokenCount * 4)
            throw new CorruptEntryError("it is truncated");
        // Its tokens (checked against the checksum only when it is read whole: a hit).
        const tokens = new Int32Array(header.tokenCount);
        await handle.read(new Uint8Array(tokens.buffer), 0, tokens.byteLength, head.length);
        return {partition: header.partition, blockHashes: header.blockHashes, tokens, bytes: stat.size, lastUsed: stat.mtimeMs};
    } finally {
        await handle.close();
    }
}

/** Every cache file under `dir`, all layouts, by path: stat only, nothing read (layouts not opened yet count toward the budget too). */
export async function cacheFileSizes(dir: string): Promise<Map<string, FileSize>> {
    const sizes = new Map<string, FileSize>();
    for (const layout of await fs.readdir(dir).catch(() => []))
        for (const name of await fs.readdir(path.join(dir, layout)).catch(() => []))
            if (name.endsWith(cacheFileExtension)) {
                const file = path.join(dir, layout, name);
                const stat = await fs.stat(file).catch(() => undefined);
                if (stat != null)
                    sizes.set(file, {bytes: stat.size, lastUsed: stat.mtimeMs});
            }
    return sizes;
}
