import type {TokenizedImage} from "./nativeVision.js";

/**
 * What images hold in memory beside a model's weights, and what the memory budget counts of it.
 *
 * Counted: a projector's cache of tokenized images (nativeVision.ts), bounded in bytes:
 * `keptImages.bytes` is added to the footprint of every model with a projector (models/modelSizing.ts).
 *
 * Counted too: the decodes under way. At most `concurrency` run for the whole server
 * (imageDecodePool.ts), each bounded by its declared size, checked from the header before any
 * decode (--max-image-pixels, images/): stb_image's inflated data and its pixels, and mtmd's copy
 * of them, three bytes a pixel each (`decodeBytesPerPixel`), about 300 MB for one decode at the
 * default 8192×4096. `imageDecodeBytes` is added to the footprint of every model with a projector,
 * so a vision model loads only where its images can also be decoded; a server with two vision
 * models resident counts the shared pool twice, which errs on the safe side. Not counted: a
 * tokenized image a request holds outside the cache (evicted, or dropped when its client left)
 * until the garbage collector frees its native handle, a 16-bit PNG's wider inflated rows, and
 * mtmd's encoder buffers, which come with the projector's weights.
 */

/**
 * Images a projector keeps tokenized (and encoded): a few conversations' worth, and the bytes they
 * may be counted at together: eight of LLaVA 1.5 7B's (576 embeddings of 4,096 floats, 9.4 MB, plus
 * its 336×336 pixels as floats) come to about 120 MB.
 */
export const keptImages = {images: 8, bytes: 128 * 1024 * 1024};

/** Three copies of a decoded pixel in RGB: the PNG's inflated rows, stb_image's pixels, mtmd's bitmap. */
export const decodeBytesPerPixel = 3 * 3;

/** What the decodes under way may hold at once: `concurrency` images of `maxPixels` each. */
export function imageDecodeBytes(maxPixels: number, concurrency: number): number {
    return maxPixels * decodeBytesPerPixel * concurrency;
}

/** Bytes of a float. */
const floatBytes = 4;

/**
 * What a tokenized image is counted at once encoded: its embeddings (`tokens` × the model's
 * embedding width, floats), and the projector's input it holds until then (the resized picture as
 * floats, three channels), estimated high: the more of the tower's own patches per image (its header)
 * and four patches per embedding (projectors that merge 2×2 patches into one), each `patch` pixels
 * square. A model whose projector feeds it wider embeddings than its own width (Qwen3-VL's stacked
 * ones) is counted low.
 */
export function tokenizedImageSize(image: TokenizedImage, shape: {embedding: number, patch: number, patches: number}): number {
    let bytes = 0;
    for (const part of image.parts) {
        if (part.type !== "image")
            continue;
        const pixels = Math.max(shape.patches, 4 * part.tokens) * shape.patch * shape.patch;
        bytes += part.tokens * shape.embedding * floatBytes + pixels * 3 * floatBytes;
    }
    return bytes;
}
