import {createHash} from "node:crypto";
import {chainedBlockHashes} from "./blockHashes.js";

/**
 * One cached prompt prefix: the KV state llama.cpp saved for a sequence holding `tokens`, and what it
 * is valid for. The same bytes serve both tiers: the RAM tier keeps them in a Buffer, the disk tier
 * in a file, so moving an entry between them is a copy.
 *
 * Layout of the bytes: magic, format version, header length, the header (JSON), the tokens (int32,
 * little-endian: an image's placeholders are negative), then llama.cpp's own state file. The header's
 * SHA-256 of tokens and state is checked before llama.cpp sees a byte: a truncated, corrupt or
 * foreign file must never reach its reader, which trusts what it reads (node-llama-cpp: "may crash
 * the process").
 */
export type CacheEntry = {
    /** The model file and every setting that shapes its KV cache (modelLayout.ts): a state is only valid under the same. */
    layout: string,
    /** The cache partition's tag ("" when requests share the cache): another partition never reads it. */
    partition: string,
    tokens: Int32Array,
    /** chainedBlockHashes(seedOf(layout, partition), tokens): how the entry is found. */
    blockHashes: string[],
    /** llama.cpp's sequence state file, as saveStateToFile wrote it. */
    state: Buffer
};

export type EntryHeader = Omit<CacheEntry, "tokens" | "state"> & {tokenCount: number, stateBytes: number, contentSha256: string};

const magic = Buffer.from("CHATSERVE-PROMPT-CACHE\n", "latin1");
const formatVersion = 1;
/** A header's JSON beyond this is no header of ours (256-token blocks of a 1M-token prompt: ~140 KB). */
const maxHeaderBytes = 4 * 1024 * 1024;
export const fixedPrefixBytes = magic.length + 8;

export class CorruptEntryError extends Error {}

export function seedOf(layout: string, partition: string): string {
    return `${layout}\u0000${partition}`;
}

export function makeEntry(layout: string, partition: string, tokens: Int32Array, state: Buffer): CacheEntry {
    return {layout, partition, tokens, blockHashes: chainedBlockHashes(seedOf(layout, partition), tokens), state};
}

export function encodeEntry(entry: CacheEntry): Buffer {
    const tokenBytes = Buffer.from(entry.tokens.buffer, entry.tokens.byteOffset, entry.tokens.byteLength);
    const header: EntryHeader = {
        layout: entry.layout, partition: entry.partition, blockHashes: entry.blockHashes,
        tokenCount: entry.tokens.length, stateBytes: entry.state.length, contentSha256: contentHash(tokenBytes, entry.state)
    };
    const json = Buffer.from(JSON.stringify(header), "utf8");
    const lengths = Buffer.alloc(8);
    lengths.writeUInt32LE(formatVersion, 0);
    lengths.writeUInt32LE(json.length, 4);
    return Buffer.concat([magic, lengths, json, tokenBytes, entry.state]);
}

/** How many bytes the header takes, read from the fixed prefix; throws when it is not ours. */
export function headerLength(prefix: Buffer): number {
    if (prefix.length < fixedPrefixBytes || !prefix.subarray(0, magic.length).equals(magic))
        throw new CorruptEntryError("not a chatserve prompt cache file");
    if (prefix.readUInt32LE(magic.length) !== formatVersion)
        throw new CorruptEntryError("written by another version of chatserve");
    const length = prefix.readUInt32LE(magic.length + 4);
    if (length > maxHeaderBytes)
        throw new CorruptEntryError("its header is too long");
    return length;
}

/** The header alone (what the disk tier's index needs), from the file's first bytes. */
export function decodeHeader(bytes: Buffer): EntryHeader {
    const length = headerLength(bytes);
    if (bytes.length < fixedPrefixBytes + length)
        throw new CorruptEntryError("it is truncated");
    let header: Partial<EntryHeader>;
    try {
        header = JSON.parse(bytes.subarray(fixedPrefixBytes, fixedPrefixBytes + length).toString("utf8")) as Partial<EntryHeader>;
    } catch {
        throw new CorruptEntryError("its header is not JSON");
    }
    const {layout, partition, blockHashes, tokenCount, stateBytes, contentSha256} = header;
    if (typeof layout !== "string" || typeof partition !== "string" || !Array.isArray(blockHashes) || !blockHashes.every((hash) => typeof hash === "string") ||
        !Number.isSafeInteger(tokenCount) || tokenCount! < 1 || !Number.isSafeInteger(stateBytes) || stateBytes! < 1 || typeof contentSha256 !== "string")
        throw new CorruptEntryError("its header is incomplete");
    return {layout, partition, blockHashes, tokenCount: tokenCount!, stateBytes: stateBytes!, contentSha256};
}

/** The whole entry, checked end to end: its length, its hash, its block hashes, and that it is `layout`'s. */
export function decodeEntry(bytes: Buffer, layout: string): CacheEntry {
    const header = decodeHeader(bytes);
    if (header.layout !== layout)
        throw new CorruptEntryError("it belongs to another model or other settings");
    const tokensStart = fixedPrefixBytes + headerLength(bytes);
    const stateStart = tokensStart + header.tokenCount * 4;
    if (bytes.length !== stateStart + header.stateBytes)
        throw new CorruptEntryError(bytes.length < stateStart + header.stateBytes ? "it is truncated" : "it has trailing bytes");
    const tokenBytes = bytes.subarray(tokensStart, stateStart);
    const state = bytes.subarray(stateStart);
    if (contentHash(tokenBytes, state) !== header.contentSha256)
        throw new CorruptEntryError("its content does not match its checksum");
    // Copied out: an Int32Array needs 4-byte alignment, which a header of any length does not keep.
    const tokens = new Int32Array(header.tokenCount);
    new Uint8Array(tokens.buffer).set(tokenBytes);
    const entry = makeEntry(layout, header.partition, tokens, state);
    if (entry.blockHashes.join() !== header.blockHashes.join())
        throw new CorruptEntryError("its block hashes do not match its tokens");
    return entry;
}

export function entryBytes(entry: CacheEntry): number {
    return entry.state.length + entry.tokens.byteLength;
}

function contentHash(tokens: Buffer, state: Buffer): string {
    return createHash("sha256").update(tokens).update(state).digest("hex");
}
