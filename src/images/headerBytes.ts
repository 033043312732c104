/**
 * Why a header was refused: `unsupported` for an image of a kind the decoder cannot read (WebP,
 * a 12-bit JPEG), otherwise bytes that are not a well-formed image. The message completes
 * "Invalid 'param': …".
 */
export class ImageHeaderError extends Error {
    public constructor(message: string, public readonly unsupported = false) {
        super(message);
    }
}

export class TruncatedHeaderError extends ImageHeaderError {
    public constructor() {
        super("the image's header is cut off (the file is truncated)");
    }
}

/**
 * Bounds-checked reads from the start of a file, for the header parsers: reading past the end
 * throws TruncatedHeaderError instead of returning undefined, so a cut-off file is one answer.
 */
export class HeaderBytes {
    public constructor(public readonly bytes: Buffer) {}

    public get length(): number {
        return this.bytes.length;
    }

    public u8(offset: number): number {
        this.need(offset, 1);
        return this.bytes[offset]!;
    }

    public u16be(offset: number): number {
        this.need(offset, 2);
        return this.bytes.readUInt16BE(offset);
    }

    public u16le(offset: number): number {
        this.need(offset, 2);
        return this.bytes.readUInt16LE(offset);
    }

    public u24le(offset: number): number {
        this.need(offset, 3);
        return this.bytes.readUIntLE(offset, 3);
    }

    public u32be(offset: number): number {
        this.need(offset, 4);
        return this.bytes.readUInt32BE(offset);
    }

    public u32le(offset: number): number {
        this.need(offset, 4);
        return this.bytes.readUInt32LE(offset);
    }

    public i32le(offset: number): number {
        this.need(offset, 4);
        return this.bytes.readInt32LE(offset);
    }

    public ascii(offset: number, length: number): string {
        this.need(offset, length);
        return this.bytes.toString("latin1", offset, offset + length);
    }

    /** Whether the bytes at `offset` are `expected` (false, not a throw, when the file is shorter). */
    public startsWith(expected: readonly number[] | string, offset = 0): boolean {
        const wanted = typeof expected === "string" ? Buffer.from(expected, "latin1") : Buffer.from(expected);
        return this.bytes.length >= offset + wanted.length && this.bytes.subarray(offset, offset + wanted.length).equals(wanted);
    }

    private need(offset: number, length: number): void {
        if (offset < 0 || offset + length > this.bytes.length)
            throw new TruncatedHeaderError();
    }
}
