import {HeaderBytes, ImageHeaderError, TruncatedHeaderError} from "./headerBytes.js";
import {readJpegSize} from "./jpegHeader.js";

/** The formats the native decoder reads (stb_image in llama.cpp's mtmd, its ffmpeg path compiled out). */
export type DecodableFormat = "png" | "jpeg" | "gif" | "bmp";

export type ImageHeader = {format: DecodableFormat, mime: string, width: number, height: number};

/**
 * An image's format and pixel size, read from its first bytes alone, before anything decodes it:
 * what the bytes are decides, not a declared type. Throws ImageHeaderError for bytes that are no
 * image this server can decode, saying what they are when that is recognisable (WebP, a web page).
 * GIF's size is its logical screen, which is what the decoder allocates for the first frame.
 */
export function readImageHeader(bytes: Buffer): ImageHeader {
    const header = new HeaderBytes(bytes);
    if (header.startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
        return {format: "png", mime: "image/png", ...readPngSize(header)};
    if (header.startsWith([0xff, 0xd8, 0xff]))
        return {format: "jpeg", mime: "image/jpeg", ...readJpegSize(header)};
    if (header.startsWith("GIF87a") || header.startsWith("GIF89a"))
        return {format: "gif", mime: "image/gif", ...nonEmpty("GIF", header.u16le(6), header.u16le(8))};
    if (header.startsWith("BM"))
        return {format: "bmp", mime: "image/bmp", ...readBmpSize(header)};
    if (header.startsWith("RIFF") && header.startsWith("WEBP", 8)) {
        const {width, height} = readWebpSize(header);
        throw new ImageHeaderError(`the image is a WebP (${width}x${height}), which this server's image decoder does not read`, true);
    }
    throw unknownBytes(header);
}

function readPngSize(header: HeaderBytes): {width: number, height: number} {
    if (header.u32be(8) !== 13 || header.ascii(12, 4) !== "IHDR")
        throw new ImageHeaderError("the PNG is corrupt (it does not start with its IHDR header)");
    const bitDepth = header.u8(24);
    const colorType = header.u8(25);
    const allowedDepths: Record<number, number[]> = {0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]};
    if (!(allowedDepths[colorType] ?? []).includes(bitDepth) || header.u8(28) > 1)
        throw new ImageHeaderError(`the PNG is corrupt (color type ${colorType} with bit depth ${bitDepth}, interlace ${header.u8(28)})`);
    const width = header.u32be(16);
    const height = header.u32be(20);
    if (width > 0x7fffffff || height > 0x7fffffff)
        throw new ImageHeaderError(`the PNG is corrupt (it declares ${width}x${height})`);
    return nonEmpty("PNG", width, height);
}

/** stb_image reads the BITMAPCOREHEADER (12 bytes) and the Windows headers of 40, 56, 108 and 124 bytes, uncompressed or bit fields. */
function readBmpSize(header: HeaderBytes): {width: number, height: number} {
    const headerSize = header.u32le(14);
    if ([12, 40, 56, 108, 124].includes(headerSize) && header.length < 14 + headerSize)
        throw new TruncatedHeaderError();
    if (headerSize === 12)
        return nonEmpty("BMP", header.u16le(18), header.u16le(20));
    if (![40, 56, 108, 124].includes(headerSize))
        throw new ImageHeaderError(`the BMP's header (${headerSize} bytes) is of a kind this server's decoder does not read`, true);
    const width = header.i32le(18);
    const height = header.i32le(22);
    const bitsPerPixel = header.u16le(28);
    const compression = header.u32le(30);
    if (width < 0 || height === -0x80000000)
        throw new ImageHeaderError(`the BMP is corrupt (it declares ${width}x${height})`);
    if (![1, 4, 8, 16, 24, 32].includes(bitsPerPixel))
        throw new ImageHeaderError(`the BMP is corrupt (${bitsPerPixel} bits per pixel)`);
    if (compression !== 0 && compression !== 3)
        throw new ImageHeaderError(`the BMP is compressed (${["", "RLE8", "RLE4", "", "JPEG", "PNG"][compression] || `method ${compression}`}), which this server's decoder does not read`, true);
    // A negative height means rows stored top-down.
    return nonEmpty("BMP", width, Math.abs(height));
}

/** Lossy (VP8), lossless (VP8L) or extended (VP8X) WebP: their sizes sit in different places. */
function readWebpSize(header: HeaderBytes): {width: number, height: number} {
    const chunk = header.ascii(12, 4);
    if (chunk === "VP8 ") {
        if (!header.startsWith([0x9d, 0x01, 0x2a], 23))
            throw new ImageHeaderError("the WebP is corrupt (no VP8 start code)");
        return {width: header.u16le(26) & 0x3fff, height: header.u16le(28) & 0x3fff};
    }
    if (chunk === "VP8L") {
        if (header.u8(20) !== 0x2f)
            throw new ImageHeaderError("the WebP is corrupt (no VP8L signature)");
        const bits = header.u32le(21);
        return {width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1};
    }
    if (chunk === "VP8X")
        return {width: header.u24le(24) + 1, height: header.u24le(27) + 1};
    throw new ImageHeaderError(`the WebP is corrupt (unknown first chunk '${chunk}')`);
}

function nonEmpty(format: string, width: number, height: number): {width: number, height: number} {
    if (width === 0 || height === 0)
        throw new ImageHeaderError(`the ${format} declares no pixels (${width}x${height})`);
    return {width, height};
}

/** Formats that are recognisable by their first bytes but that the decoder cannot read (or that are no image at all). */
function unknownBytes(header: HeaderBytes): ImageHeaderError {
    const text = header.bytes.subarray(0, 512).toString("latin1").replace(/^\uFEFF|^\xEF\xBB\xBF/, "").trimStart().toLowerCase();
    const brand = header.length >= 12 && header.startsWith("ftyp", 4) ? header.ascii(8, 4) : "";
    const unsupported = header.startsWith("II*\0") || header.startsWith("MM\0*") ? "a TIFF"
        : ["avif", "avis"].includes(brand) ? "an AVIF"
            : ["heic", "heix", "hevc", "mif1", "msf1"].includes(brand) ? "a HEIC/HEIF"
                : header.startsWith([0xff, 0x0a]) || header.startsWith([0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20]) ? "a JPEG XL"
                    : header.startsWith("8BPS") ? "a Photoshop (PSD)"
                        : text.startsWith("<svg") || (text.startsWith("<?xml") && text.includes("<svg")) ? "an SVG" : null;
    if (unsupported != null)
        return new ImageHeaderError(`the image is ${unsupported} image, which this server's image decoder does not read`, true);
    if (header.length === 0)
        return new ImageHeaderError("the image is empty (0 bytes)");
    const what = text.startsWith("<!doctype html") || text.startsWith("<html") ? "an HTML page"
        : header.startsWith("%PDF") ? "a PDF document"
            : header.length >= 8 && header.startsWith("ftyp", 4) ? "a video or other media file" : "not an image this server recognises";
    return new ImageHeaderError(what.startsWith("not") ? `the data is ${what}` : `the data is ${what}, not an image`);
}
