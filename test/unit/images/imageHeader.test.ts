import {describe, expect, it} from "vitest";
import {ImageHeaderError} from "../../../src/images/headerBytes.js";
import {readImageHeader} from "../../../src/images/imageHeader.js";
import {encodeBmp, encodeGif, encodeJpeg, encodePng, gradient, pngHeader} from "../../fixtures/images.js";
import {thrownError} from "../support/thrownError.js";

const refusal = (bytes: Buffer) => thrownError(ImageHeaderError, () => readImageHeader(bytes));

describe("readImageHeader", () => {
    it.each([
        ["png", encodePng, "image/png"],
        ["jpeg", encodeJpeg, "image/jpeg"],
        ["gif", encodeGif, "image/gif"],
        ["bmp", encodeBmp, "image/bmp"]
    ] as const)("reads a %s's format and size from its header", (format, encode, mime) => {
        expect(readImageHeader(encode(13, 7, gradient(13, 7)))).toEqual({format, mime, width: 13, height: 7});
        expect(readImageHeader(encode(1, 1, gradient(1, 1)))).toEqual({format, mime, width: 1, height: 1});
    });

    it("reads a size the header claims without decoding anything: a decompression bomb is 33 bytes", () => {
        expect(readImageHeader(pngHeader(100_000, 100_000))).toMatchObject({format: "png", width: 100_000, height: 100_000});
        expect(readImageHeader(bmpHeader(40, 50_000, -60_000))).toMatchObject({format: "bmp", width: 50_000, height: 60_000});
        expect(readImageHeader(gifHeader(65535, 65535))).toMatchObject({width: 65535, height: 65535});
        expect(readImageHeader(bmpCoreHeader(300, 200))).toMatchObject({format: "bmp", width: 300, height: 200});
    });

    it("finds a JPEG's frame header past other segments, and reads progressive JPEGs", () => {
        const jpeg = encodeJpeg(20, 10, gradient(20, 10));
        const withApp = Buffer.concat([jpeg.subarray(0, 2), segment(0xe0, Buffer.from("JFIF\0\x01\x01\0\0\x01\0\x01\0\0", "latin1")),
            segment(0xe1, Buffer.alloc(3000)), jpeg.subarray(2)]);
        expect(readImageHeader(withApp)).toMatchObject({format: "jpeg", width: 20, height: 10});
        expect(readImageHeader(jpegWithFrame(0xc2, {width: 640, height: 480}))).toMatchObject({width: 640, height: 480});
        expect(readImageHeader(jpegWithFrame(0xc1, {width: 64, height: 48}))).toMatchObject({width: 64, height: 48});
    });

    it("refuses JPEG kinds the decoder cannot read, as unsupported", () => {
        expect(refusal(jpegWithFrame(0xc3, {width: 8, height: 8}))).toMatchObject({unsupported: true, message: expect.stringContaining("lossless JPEG")});
        expect(refusal(jpegWithFrame(0xc9, {width: 8, height: 8}))).toMatchObject({unsupported: true, message: expect.stringContaining("arithmetic-coded")});
        expect(refusal(jpegWithFrame(0xc0, {width: 8, height: 8, precision: 12}))).toMatchObject({unsupported: true, message: expect.stringContaining("12-bit")});
    });

    it("refuses corrupt JPEGs: no frame header, a height left to a DNL marker, too many scans", () => {
        expect(refusal(Buffer.from([0xff, 0xd8, 0xff, 0xd9])).message).toContain("no frame header");
        expect(refusal(jpegWithFrame(0xc0, {width: 8, height: 8}).subarray(0, 84)).message).toContain("no image data");
        expect(refusal(jpegWithFrame(0xc0, {width: 8, height: 0})).message).toContain("no size");
        expect(refusal(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2])).message).toContain("before its frame header");
        const scans = Array.from({length: 257}, () => Buffer.concat([segment(0xda, Buffer.from([1, 1, 0, 1, 63, 0])), Buffer.from([0x12, 0xff, 0x00, 0x34])]));
        const manyScans = Buffer.concat([jpegWithFrame(0xc2, {width: 8, height: 8}).subarray(0, -2), ...scans.slice(1), Buffer.from([0xff, 0xd9])]);
        expect(refusal(manyScans).message).toContain("more than 256 scans");
        const fewScans = Buffer.concat([jpegWithFrame(0xc2, {width: 8, height: 8}).subarray(0, -2), ...scans.slice(0, 10), Buffer.from([0xff, 0xd9])]);
        expect(readImageHeader(fewScans)).toMatchObject({width: 8, height: 8});
    });

    it("says WebP is not read, with its size, for each of its three kinds", () => {
        for (const webp of [webpLossy(320, 240), webpLossless(320, 240), webpExtended(320, 240)])
            expect(refusal(webp)).toMatchObject({unsupported: true, message: "the image is a WebP (320x240), which this server's image decoder does not read"});
    });

    it("names other image formats it recognises as unsupported", () => {
        expect(refusal(Buffer.from("II*\0\x08\0\0\0", "latin1"))).toMatchObject({unsupported: true, message: expect.stringContaining("TIFF")});
        expect(refusal(Buffer.from("\0\0\0\x1cftypavif\0\0\0\0", "latin1"))).toMatchObject({unsupported: true, message: expect.stringContaining("AVIF")});
        expect(refusal(Buffer.from("\0\0\0\x18ftypheic\0\0\0\0", "latin1"))).toMatchObject({unsupported: true, message: expect.stringContaining("HEIC")});
        expect(refusal(Buffer.from("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>"))).toMatchObject({unsupported: true, message: expect.stringContaining("SVG")});
    });

    it("says what non-images are", () => {
        expect(refusal(Buffer.from("<!DOCTYPE html><html><body>Sign in</body></html>"))).toMatchObject({unsupported: false, message: "the data is an HTML page, not an image"});
        expect(refusal(Buffer.from("%PDF-1.7\n")).message).toBe("the data is a PDF document, not an image");
        expect(refusal(Buffer.from("hello world")).message).toBe("the data is not an image this server recognises");
        expect(refusal(Buffer.alloc(0)).message).toBe("the image is empty (0 bytes)");
    });

    it("refuses truncated headers, whatever byte they stop at", () => {
        const files = [encodePng(4, 4, gradient(4, 4)).subarray(0, 29), encodeJpeg(8, 8, gradient(8, 8)), encodeGif(3, 3, gradient(3, 3)).subarray(0, 10),
            encodeBmp(3, 3, gradient(3, 3)).subarray(0, 54), webpLossy(5, 5)];
        for (const file of files) {
            const headerEnd = file.length;
            for (let cut = 1; cut < Math.min(headerEnd, 200); cut++) {
                const truncated = file.subarray(0, cut);
                expect(() => readImageHeader(truncated), `${file.subarray(0, 4).toString("hex")} cut at ${cut}`).toThrow(ImageHeaderError);
            }
        }
    });

    it("refuses corrupt PNG, GIF and BMP headers", () => {
        const png = encodePng(4, 4, gradient(4, 4));
        expect(refusal(Buffer.concat([png.subarray(0, 12), Buffer.from("IDAT"), png.subarray(16)])).message).toContain("IHDR");
        const badDepth = Buffer.from(png);
        badDepth[24] = 3;
        expect(refusal(badDepth).message).toContain("bit depth 3");
        expect(refusal(pngHeader(0, 10)).message).toContain("no pixels (0x10)");
        expect(refusal(pngHeader(0x80000000, 1)).message).toContain("corrupt");
        expect(refusal(gifHeader(0, 5)).message).toContain("no pixels");
        expect(refusal(bmpHeader(40, -5, 5)).message).toContain("corrupt");
        expect(refusal(bmpHeader(64, 5, 5))).toMatchObject({unsupported: true});
        expect(refusal(bmpHeader(40, 5, 5, {compression: 1}))).toMatchObject({unsupported: true, message: expect.stringContaining("RLE8")});
        expect(refusal(bmpHeader(40, 5, 5, {bitsPerPixel: 7})).message).toContain("7 bits per pixel");
    });
});

function segment(marker: number, data: Buffer): Buffer {
    return Buffer.concat([Buffer.from([0xff, marker, (data.length + 2) >> 8, (data.length + 2) & 0xff]), data]);
}

function jpegWithFrame(marker: number, {width, height, precision = 8}: {width: number, height: number, precision?: number}): Buffer {
    const frame = Buffer.from([precision, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]);
    const scan = Buffer.concat([segment(0xda, Buffer.from([1, 1, 0, 0, 63, 0])), Buffer.from([0x12, 0x34])]);
    return Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xdb, Buffer.alloc(65)), segment(marker, frame), scan, Buffer.from([0xff, 0xd9])]);
}

function gifHeader(width: number, height: number): Buffer {
    const header = Buffer.alloc(13);
    header.write("GIF89a", 0, "latin1");
    header.writeUInt16LE(width, 6);
    header.writeUInt16LE(height, 8);
    return header;
}

function bmpHeader(headerSize: number, width: number, height: number, {bitsPerPixel = 24, compression = 0} = {}): Buffer {
    const header = Buffer.alloc(14 + headerSize);
    header.write("BM", 0, "latin1");
    header.writeUInt32LE(headerSize, 14);
    header.writeInt32LE(width, 18);
    header.writeInt32LE(height, 22);
    header.writeUInt16LE(1, 26);
    header.writeUInt16LE(bitsPerPixel, 28);
    header.writeUInt32LE(compression, 30);
    return header;
}

function bmpCoreHeader(width: number, height: number): Buffer {
    const header = Buffer.alloc(26);
    header.write("BM", 0, "latin1");
    header.writeUInt32LE(12, 14);
    header.writeUInt16LE(width, 18);
    header.writeUInt16LE(height, 20);
    return header;
}

function riff(chunk: string, data: Buffer): Buffer {
    const head = Buffer.alloc(20);
    head.write("RIFF", 0, "latin1");
    head.writeUInt32LE(12 + data.length, 4);
    head.write("WEBP", 8, "latin1");
    head.write(chunk, 12, "latin1");
    head.writeUInt32LE(data.length, 16);
    return Buffer.concat([head, data]);
}

function webpLossy(width: number, height: number): Buffer {
    const data = Buffer.alloc(10);
    data.set([0x9d, 0x01, 0x2a], 3);
    data.writeUInt16LE(width, 6);
    data.writeUInt16LE(height, 8);
    return riff("VP8 ", data);
}

function webpLossless(width: number, height: number): Buffer {
    const data = Buffer.alloc(5);
    data[0] = 0x2f;
    data.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 1);
    return riff("VP8L", data);
}

function webpExtended(width: number, height: number): Buffer {
    const data = Buffer.alloc(10);
    data.writeUIntLE(width - 1, 4, 3);
    data.writeUIntLE(height - 1, 7, 3);
    return riff("VP8X", data);
}
