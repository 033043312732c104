import type {FileHandle} from "node:fs/promises";

/**
 * Checks a GGUF header's lengths against the file's size before node-llama-cpp reads it: the
 * header's counts, then every metadata entry's key, string and array length. node-llama-cpp
 * believes them: a 300-byte file whose one entry claimed an array of 2^40 bytes had it read element
 * by element until the 10 s timeout, and left the server ~700 MB bigger. Only lengths are read
 * (in large chunks), and the values of the keys `wanted` names (ggufLoadChecks.ts reads them), so
 * that the vocabulary is walked once, not again by node-llama-cpp.
 */

/** Bytes of each scalar metadata type, by GGUF type id (8 is a string, 9 an array). */
const scalarBytes = new Map([[0, 1], [1, 1], [2, 2], [3, 2], [4, 4], [5, 4], [6, 4], [7, 1], [10, 8], [11, 8], [12, 8]]);
const stringType = 8;
const arrayType = 9;
const chunkBytes = 1 << 20;

/** A wanted key's value: a number, a string (bytes as latin1, one character a byte), or an array of them. */
export type HeaderValue = number | string | Array<number | string>;

export async function checkGgufBounds(file: FileHandle, size: number, wanted: (key: string) => boolean = () => false): Promise<Map<string, HeaderValue>> {
    const cursor = new HeaderCursor(file, size);
    const values = new Map<string, HeaderValue>();
    // Not a GGUF, or version 1 (whose counts are 32-bit): node-llama-cpp's reader says so.
    if (size < 24)
        return values;
    await cursor.need(24);
    if (cursor.text(4) !== "GGUF" || cursor.u32() < 2)
        return values;
    const tensors = cursor.u64();
    const entries = cursor.u64();
    // node-llama-cpp reads zeros past a file's end, so a truncated header claiming billions of
    // entries was parsed for ever. An entry takes at least 13 bytes (key length, one character,
    // type, one byte of value), a tensor's description 24.
    if (entries * 13 + tensors * 24 > size)
        throw new Error(`the GGUF header claims ${entries} metadata entries and ${tensors} tensors, more than a file of ${size} bytes can hold`);
    for (let entry = 0; entry < entries; entry++) {
        await cursor.need(8);
        const keyBytes = cursor.length(cursor.u64(), 1, `metadata entry ${entry}'s key`, "bytes");
        await cursor.need(keyBytes + 4);
        const key = cursor.text(keyBytes);
        const type = cursor.u32();
        if (wanted(key))
            values.set(key, await readValue(cursor, type, key));
        else
            await skipValue(cursor, type, `metadata entry ${entry}`);
    }
    return values;
}

/** A wanted entry's value; an array of arrays is only checked (no key read here holds one). */
async function readValue(cursor: HeaderCursor, type: number, key: string): Promise<HeaderValue> {
    if (scalarBytes.has(type) || type === stringType)
        return await readScalar(cursor, type, key);
    if (type !== arrayType)
        throw new Error(`the GGUF header's ${key} has an unknown type (${type})`);
    await cursor.need(12);
    const itemType = cursor.u32();
    const count = cursor.length(cursor.u64(), scalarBytes.get(itemType) ?? (itemType === stringType ? 8 : 12), `${key}'s array`);
    if (itemType === arrayType) {
        for (let index = 0; index < count; index++)
            await skipValue(cursor, itemType, key);
        return [];
    }
    const items: Array<number | string> = [];
    // A vocabulary is hundreds of thousands of strings: those already in the chunk are read without a wait each.
    for (let index = 0; index < count; index++)
        items.push((itemType === stringType ? cursor.stringInChunk(key) : null) ?? await readScalar(cursor, itemType, key));
    return items;
}

async function readScalar(cursor: HeaderCursor, type: number, key: string): Promise<number | string> {
    if (type === stringType) {
        if (!cursor.has(8))
            await cursor.need(8);
        const bytes = cursor.length(cursor.u64(), 1, `${key}'s string`, "bytes");
        if (!cursor.has(bytes))
            await cursor.need(bytes);
        return cursor.text(bytes);
    }
    const bytes = scalarBytes.get(type);
    if (bytes == null)
        throw new Error(`the GGUF header's ${key} has an unknown type (${type})`);
    if (!cursor.has(bytes))
        await cursor.need(bytes);
    return cursor.number(type);
}

async function skipValue(cursor: HeaderCursor, type: number, what: string): Promise<void> {
    const bytes = scalarBytes.get(type);
    if (bytes != null)
        return cursor.skip(bytes);
    if (type === stringType) {
        await cursor.need(8);
        return cursor.skip(cursor.length(cursor.u64(), 1, what, "bytes"));
    }
    if (type !== arrayType)
        throw new Error(`the GGUF header's ${what} has an unknown type (${type})`);
    await cursor.need(12);
    const itemType = cursor.u32();
    const itemBytes = scalarBytes.get(itemType);
    // A string is at least its 8-byte length; an array at least its type and count.
    const count = cursor.length(cursor.u64(), itemBytes ?? (itemType === stringType ? 8 : 12), `${what}'s array`);
    if (itemBytes != null)
        return cursor.skip(count * itemBytes);
    // A vocabulary is hundreds of thousands of strings: their lengths are read without a wait each.
    for (let index = 0; index < count; index++) {
        if (itemType === stringType && cursor.has(8))
            cursor.skip(cursor.length(cursor.u64(), 1, `${what}'s string`, "bytes"));
        else
            await skipValue(cursor, itemType, what);
    }
}

/** Reads the header front to back, a chunk at a time: `need` what the next reads take first. */
class HeaderCursor {
    private chunk = Buffer.alloc(0);
    private chunkStart = 0;
    private position = 0;

    public constructor(private readonly file: FileHandle, private readonly size: number) {}

    /** A claimed count of items (or bytes) of at least `bytes` each, as a number, if what is left of the file can hold them. */
    public length(count: number, bytes: number, what: string, unit = "items"): number {
        if (count * bytes > this.size - this.position)
            throw new Error(`the GGUF header's ${what} claims ${count} ${unit}, more than a file of ${this.size} bytes can hold`);
        return count;
    }

    public has(bytes: number): boolean {
        const offset = this.position - this.chunkStart;
        return offset >= 0 && offset + bytes <= this.chunk.length;
    }

    public async need(bytes: number): Promise<void> {
        if (this.position + bytes > this.size)
            throw new Error(`the GGUF header ends past the end of the file (${this.size} bytes)`);
        if (this.has(bytes))
            return;
        // A string longer than a chunk (a wanted value) gets a chunk of its own size.
        this.chunk = Buffer.alloc(Math.min(Math.max(chunkBytes, bytes), this.size - this.position));
        this.chunkStart = this.position;
        await this.file.read(this.chunk, 0, this.chunk.length, this.position);
    }

    public skip(bytes: number): void {
        this.position += bytes;
    }

    /** The next string, if the chunk holds all of it (else null, and the cursor stays). */
    public stringInChunk(what: string): string | null {
        if (!this.has(8))
            return null;
        const start = this.position - this.chunkStart;
        const bytes = this.chunk.readUInt32LE(start + 4) * 2 ** 32 + this.chunk.readUInt32LE(start);
        if (!this.has(8 + bytes))
            return null;
        this.skip(8);
        return this.text(this.length(bytes, 1, `${what}'s string`, "bytes"));
    }

    public text(bytes: number): string {
        const start = this.take(bytes);
        return this.chunk.toString("latin1", start, start + bytes);
    }

    public u32(): number {
        return this.chunk.readUInt32LE(this.take(4));
    }

    /** A scalar of GGUF type `type` (integers past 2^53 lose their last digits: no count read here comes near). */
    public number(type: number): number {
        const start = this.take(scalarBytes.get(type)!);
        const chunk = this.chunk;
        switch (type) {
            case 0: case 7: return chunk.readUInt8(start);
            case 1: return chunk.readInt8(start);
            case 2: return chunk.readUInt16LE(start);
            case 3: return chunk.readInt16LE(start);
            case 4: return chunk.readUInt32LE(start);
            case 5: return chunk.readInt32LE(start);
            case 6: return chunk.readFloatLE(start);
            case 10: return Number(chunk.readBigUInt64LE(start));
            case 11: return Number(chunk.readBigInt64LE(start));
            default: return chunk.readDoubleLE(start);
        }
    }

    /** Exact up to 2^53, which no file reaches; a number, as a BigInt per vocabulary entry was slow. */
    public u64(): number {
        const start = this.take(8);
        return this.chunk.readUInt32LE(start + 4) * 2 ** 32 + this.chunk.readUInt32LE(start);
    }

    /** Where the next `bytes` start in the chunk; the cursor moves past them. */
    private take(bytes: number): number {
        const start = this.position - this.chunkStart;
        this.position += bytes;
        return start;
    }
}
