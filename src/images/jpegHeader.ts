import {HeaderBytes, ImageHeaderError, TruncatedHeaderError} from "./headerBytes.js";

/**
 * A JPEG's size, from its frame header (SOFn), found by walking the marker segments. Only what
 * stb_image (the decoder in llama.cpp's mtmd) reads passes: baseline, extended sequential and
 * progressive Huffman frames (SOF0-2) of 8-bit samples with 1, 3 or 4 components.
 *
 * The scans are counted too: a progressive JPEG can repeat near-empty scans over the whole image
 * (a few bytes each), and a decoder walks every block once per scan, so a small file can cost
 * far more decoding time than its size suggests (libjpeg-turbo offers a scan limit for this).
 * Measured with stb_image on a 4096×4096 JPEG: 10,000 such scans, 433 KB, took 3.8 s to decode
 * (about 0.4 ms a scan), so 10 MB of them would take minutes. Ordinary progressive JPEGs have
 * about ten scans.
 */
const maxScans = 256;

const sofNames: Record<number, string> = {
    0xc3: "lossless", 0xc5: "hierarchical", 0xc6: "hierarchical progressive", 0xc7: "hierarchical lossless",
    0xc9: "arithmetic-coded", 0xca: "arithmetic-coded progressive", 0xcb: "arithmetic-coded lossless",
    0xcd: "hierarchical arithmetic-coded", 0xce: "hierarchical arithmetic-coded progressive", 0xcf: "hierarchical arithmetic-coded lossless"
};

export function readJpegSize(header: HeaderBytes): {width: number, height: number} {
    let size: {width: number, height: number} | null = null;
    let scans = 0;
    let offset = 2;
    while (offset < header.length) {
        if (header.u8(offset) !== 0xff)
            throw new ImageHeaderError(`the JPEG is corrupt (no marker at byte ${offset})`);
        while (header.u8(offset) === 0xff)
            offset++;
        const marker = header.u8(offset++);
        if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01)
            continue;
        if (marker === 0xd9)
            break;
        if (marker === 0x00 || marker === 0xd8)
            throw new ImageHeaderError(`the JPEG is corrupt (marker 0x${marker.toString(16)} at byte ${offset - 1})`);
        const length = header.u16be(offset);
        if (length < 2)
            throw new ImageHeaderError("the JPEG is corrupt (a segment shorter than its length field)");
        if (offset + length > header.length)
            throw new TruncatedHeaderError();
        if (isFrameHeader(marker)) {
            if (size != null)
                throw new ImageHeaderError("the JPEG is corrupt (two frame headers)");
            size = frameSize(header, marker, offset, length);
        } else if (marker === 0xda) {
            if (size == null)
                throw new ImageHeaderError("the JPEG is corrupt (image data before its frame header)");
            if (++scans > maxScans)
                throw new ImageHeaderError(`the JPEG has more than ${maxScans} scans (a pattern that exhausts decoders)`);
            offset = endOfEntropyData(header.bytes, offset + length);
            continue;
        }
        offset += length;
    }
    if (size == null)
        throw new ImageHeaderError("the JPEG has no frame header (SOF marker): it is truncated or corrupt");
    if (scans === 0)
        throw new ImageHeaderError("the JPEG has no image data (no scan): it is truncated");
    return size;
}

/** SOF0-SOF15, less the three markers in that block that are something else (DHT, JPG, DAC). */
function isFrameHeader(marker: number): boolean {
    return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function frameSize(header: HeaderBytes, marker: number, offset: number, length: number): {width: number, height: number} {
    if (length < 8)
        throw new ImageHeaderError("the JPEG's frame header is too short");
    const precision = header.u8(offset + 2);
    const height = header.u16be(offset + 3);
    const width = header.u16be(offset + 5);
    const components = header.u8(offset + 7);
    if (marker > 0xc2)
        throw new ImageHeaderError(`the image is a ${sofNames[marker]} JPEG (SOF${marker - 0xc0}), which this server's decoder does not read`, true);
    if (precision !== 8)
        throw new ImageHeaderError(`the image is a ${precision}-bit JPEG; this server's decoder reads 8-bit JPEGs only`, true);
    if (![1, 3, 4].includes(components))
        throw new ImageHeaderError(`the JPEG is corrupt (${components} color components)`);
    if (width === 0 || height === 0)
        throw new ImageHeaderError(`the JPEG declares no size (${width}x${height})`);
    return {width, height};
}

/**
 * Past a scan's entropy-coded data: to the next marker, a 0xFF byte followed by anything but a
 * stuffed zero or a restart marker. The end of the file when none follows (decoders accept a
 * JPEG without its end marker).
 */
function endOfEntropyData(bytes: Buffer, from: number): number {
    let offset = from;
    for (;;) {
        offset = bytes.indexOf(0xff, offset);
        if (offset < 0 || offset + 1 >= bytes.length)
            return bytes.length;
        const next = bytes[offset + 1]!;
        if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7))
            return offset;
        offset += next === 0xff ? 1 : 2;
    }
}
