import type {TokenizedImage} from "./nativeVision.js";

/**
 * What images hold in memory beside a model's weights, and what the memory budget counts of it.
 *
 * Counted: a projector's cache of tokenized images (nativeVision.ts), bounded in bytes:
 * `keptImages.bytes` is added to the footprint of every model with a projector (models/modelSizing.ts).
 *
 * Bounded but not counted: decodes under way. At most two run for the whole server
 * (imageDecodePool.ts), each bounded by its declared size, checked from the header before any
 * decode (--max-image-pixels, images/): stb_image's pixels and mtmd's copies of them, three bytes a
 * pixel each, about 300 MB for three copies at the default 8192×4096. Reserving that from the budget
 * of every server that can serve images would cost every text model as much, for a peak that lasts
 * a second; it is left out. Also not counted: a tokenized image a request holds outside the cache
 * (evicted, or dropped when its client left) until the garbage collector frees its native handle,
 * and mtmd's encoder buffers, which come with the projector's weights.
 */

/**
 * Images a projector keeps tokenized (and encoded): a few conversations' worth, and the bytes they
 * may be counted at together: eight of LLaVA 1.5 7B's (576 embeddings of 4,096 floats, 9.4 MB, plus
 * its 336×336 pixels as floats) come to about 120 MB.
 */
export const keptImages = {images: 8, bytes: 128 * 1024 * 1024};

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
