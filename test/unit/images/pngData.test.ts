import {deflateSync} from "node:zlib";
import {describe, expect, it} from "vitest";
import {ImageHeaderError} from "../../../src/images/headerBytes.js";
import {checkPngData, idatChunks, rawPngSize} from "../../../src/images/pngData.js";
import {encodePng, gradient, pngBomb, pngHeader} from "../../fixtures/images.js";

const signal = () => new AbortController().signal;
const refusal = (png: Buffer) => checkPngData(png, signal()).then(() => null, (error: unknown) => error);

describe("rawPngSize", () => {
    it("is a filter byte and the packed pixels per row", () => {
        expect(rawPngSize({width: 12, height: 8, bitDepth: 8, colorType: 2, interlaced: false})).toBe(8 * (1 + 36));
        expect(rawPngSize({width: 1, height: 1, bitDepth: 8, colorType: 2, interlaced: false})).toBe(4);
        expect(rawPngSize({width: 10, height: 3, bitDepth: 1, colorType: 0, interlaced: false})).toBe(3 * (1 + 2));
        expect(rawPngSize({width: 5, height: 2, bitDepth: 4, colorType: 3, interlaced: false})).toBe(2 * (1 + 3));
        expect(rawPngSize({width: 3, height: 3, bitDepth: 16, colorType: 6, interlaced: false})).toBe(3 * (1 + 24));
        expect(rawPngSize({width: 7, height: 2, bitDepth: 16, colorType: 4, interlaced: false})).toBe(2 * (1 + 28));
    });

    it("sums Adam7's seven passes when interlaced, leaving out empty ones", () => {
        // 1×1: only the first pass has a pixel.
        expect(rawPngSize({width: 1, height: 1, bitDepth: 8, colorType: 2, interlaced: true})).toBe(4);
        // 8×8 RGB: passes of 1×1, 1×1, 2×1, 2×2, 4×2, 4×4, 8×4 pixels.
        const passes = [[1, 1], [1, 1], [2, 1], [2, 2], [4, 2], [4, 4], [8, 4]];
        expect(rawPngSize({width: 8, height: 8, bitDepth: 8, colorType: 2, interlaced: true}))
            .toBe(passes.reduce((sum, [w, h]) => sum + h! * (1 + w! * 3), 0));
        // 3×2 grey 1-bit: passes 1 (1×1), 4 (1×1 at x=2), 5 (2×1... at y=2: none), 6 (1×1 at x=1), 7 (2×1 at y=1).
        expect(rawPngSize({width: 3, height: 2, bitDepth: 1, colorType: 0, interlaced: true})).toBe(2 + 2 + 2 + 2);
    });
});

describe("checkPngData", () => {
    it("passes a PNG whose data inflates to exactly what its header declares", async () => {
        await expect(checkPngData(encodePng(12, 8, gradient(12, 8)), signal())).resolves.toBeUndefined();
    });

    it("refuses a PNG that claims 1×1 and inflates to 64 MB, having counted no more than the bound", async () => {
        const bomb = pngBomb(1, 1, 64);
        expect(bomb.length).toBeLessThan(100_000);
        const error = await refusal(bomb);
        expect(error).toBeInstanceOf(ImageHeaderError);
        expect((error as Error).message).toMatch(/inflates to more than the 4 bytes its 1x1 header declares/);
    });

    it("refuses data one byte longer than declared", async () => {
        const rows = Buffer.alloc(8 * 37 + 1);
        const png = encodePng(12, 8, gradient(12, 8));
        const [idat] = idatChunks(png);
        const longer = Buffer.concat([png.subarray(0, idat!.byteOffset - png.byteOffset - 8), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
        expect(((await refusal(longer)) as Error).message).toContain("inflates to more than the 296 bytes");
    });

    it("refuses a file cut off inside a chunk, one with no image data, and data that is no zlib stream", async () => {
        const png = encodePng(12, 8, gradient(12, 8));
        expect(((await refusal(png.subarray(0, png.length - 20))) as Error).message).toMatch(/cut off/);
        expect(((await refusal(Buffer.concat([pngHeader(1, 1), chunk("IEND", Buffer.alloc(0))]))) as Error).message).toContain("no IDAT");
        expect(((await refusal(Buffer.concat([pngHeader(1, 1), chunk("IDAT", Buffer.from("not zlib")), chunk("IEND", Buffer.alloc(0))]))) as Error).message)
            .toContain("corrupt");
    });

    it("stops when the client leaves", async () => {
        const controller = new AbortController();
        controller.abort(new Error("client gone"));
        await expect(checkPngData(encodePng(12, 8, gradient(12, 8)), controller.signal)).rejects.toThrow("client gone");
    });
});

/** A chunk with a zero CRC: neither stb_image nor the check reads it. */
function chunk(type: string, data: Buffer): Buffer {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, "latin1");
    return Buffer.concat([head, data, Buffer.alloc(4)]);
}
