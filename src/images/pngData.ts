import {createInflate} from "node:zlib";
import {ImageHeaderError, TruncatedHeaderError} from "./headerBytes.js";

/**
 * A PNG's compressed image data checked against what its header declares, before the native
 * decoder sees it. The pixel cap reads width and height from IHDR, but stb_image (in llama.cpp's
 * mtmd) inflates the IDAT stream into a buffer that grows for as long as the stream goes on: a
 * 2 MB PNG that says 1×1 can inflate to 2 GiB (deflate packs up to 1032:1), all of it allocated
 * and filled before the decoder notices there are more bytes than pixels. So the stream is
 * inflated here first, counting bytes and keeping none, and stopped one byte past the exact size
 * the header implies. The inflate runs on libuv's pool in 16 KiB steps, never on the event loop.
 */

/** Channels per pixel of each PNG colour type: grey, RGB, palette index, grey+alpha, RGBA. */
const channels: Record<number, number> = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4};

/** Adam7's seven passes: where each starts and how far apart its pixels are, across and down. */
const adam7 = [
    {x: 0, y: 0, dx: 8, dy: 8}, {x: 4, y: 0, dx: 8, dy: 8}, {x: 0, y: 4, dx: 4, dy: 8}, {x: 2, y: 0, dx: 4, dy: 4},
    {x: 0, y: 2, dx: 2, dy: 4}, {x: 1, y: 0, dx: 2, dy: 2}, {x: 0, y: 1, dx: 1, dy: 2}
];

export type PngLayout = {width: number, height: number, bitDepth: number, colorType: number, interlaced: boolean};

/** The bytes the IDAT stream inflates to for this header: each row is a filter byte and its packed pixels, per pass when interlaced. */
export function rawPngSize(png: PngLayout): number {
    const bitsPerPixel = channels[png.colorType]! * png.bitDepth;
    const rows = (width: number, height: number) => width === 0 || height === 0 ? 0 : height * (1 + Math.ceil(width * bitsPerPixel / 8));
    if (!png.interlaced)
        return rows(png.width, png.height);
    return adam7.reduce((total, pass) => total + rows(
        Math.max(0, Math.ceil((png.width - pass.x) / pass.dx)),
        Math.max(0, Math.ceil((png.height - pass.y) / pass.dy))
    ), 0);
}

/** The header fields that size the data (readImageHeader has already checked them). */
export function readPngLayout(bytes: Buffer): PngLayout {
    return {width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), bitDepth: bytes[24]!, colorType: bytes[25]!, interlaced: bytes[28] === 1};
}

/** The IDAT chunks' data, in order, from the chunk list (lengths checked against the file; CRCs are not, as stb_image does not). */
export function idatChunks(bytes: Buffer): Buffer[] {
    const chunks: Buffer[] = [];
    let offset = 8;
    for (;;) {
        if (offset + 8 > bytes.length)
            throw new TruncatedHeaderError();
        const length = bytes.readUInt32BE(offset);
        const type = bytes.toString("latin1", offset + 4, offset + 8);
        const end = offset + 12 + length;
        if (length > 0x7fffffff || end > bytes.length)
            throw new ImageHeaderError(`the PNG is cut off (its ${type} chunk runs past the end of the file)`);
        if (type === "IDAT")
            chunks.push(bytes.subarray(offset + 8, offset + 8 + length));
        if (type === "IEND")
            break;
        offset = end;
    }
    if (chunks.length === 0)
        throw new ImageHeaderError("the PNG has no image data (no IDAT chunk)");
    return chunks;
}

/**
 * Inflates the data counting its bytes; throws ImageHeaderError when it inflates to more than the
 * header allows, or is no valid zlib stream (stb_image would refuse it too), and the signal's
 * reason when the client leaves.
 */
export async function checkPngData(bytes: Buffer, signal: AbortSignal): Promise<void> {
    const layout = readPngLayout(bytes);
    const allowed = rawPngSize(layout);
    const chunks = idatChunks(bytes);
    await new Promise<void>((resolve, reject) => {
        const inflate = createInflate();
        let inflated = 0;
        const finish = (error?: Error) => {
            signal.removeEventListener("abort", onAbort);
            inflate.destroy();
            if (error == null)
                resolve();
            else
                reject(error);
        };
        const onAbort = () => finish(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
        signal.addEventListener("abort", onAbort, {once: true});
        inflate.on("data", (chunk: Buffer) => {
            inflated += chunk.length;
            if (inflated > allowed)
                finish(new ImageHeaderError(`the PNG's image data inflates to more than the ${allowed} bytes its ${layout.width}x${layout.height} header `
                    + "declares (a decompression bomb)"));
        });
        inflate.on("error", (error: Error & {code?: string}) => {
            // stb_image skips zlib's checksum: a wrong one, met after every byte was counted, is no reason to refuse.
            if (/incorrect data check/.test(error.message))
                return finish();
            finish(new ImageHeaderError(`the PNG's image data is corrupt (${zlibReason(error)})`));
        });
        inflate.on("end", () => finish());
        if (signal.aborted)
            return onAbort();
        for (const chunk of chunks)
            inflate.write(chunk);
        inflate.end();
    });
}

function zlibReason(error: Error & {code?: string}): string {
    return error.code === "Z_BUF_ERROR" ? "the compressed stream is cut off" : error.message;
}
