import type {TokenizedImage} from "./nativeVision.js";

/**
 * What images hold in memory beside a model's weights, as the memory budget counts it.
 *
 * Two things are counted. A projector's cache of tokenized images (nativeVision.ts), bounded in
 * bytes: `keptImages.bytes` is added to every model with a projector (models/modelSizing.ts). And a
 * decode under way (stb_image's pixels, then mtmd's resized copy): a few at a time for the whole
 * server (imageDecodePool.ts), each bounded by its declared size (--max-image-pixels, checked from the
 * header before any decode: images/), which `inFlightDecodeBytes` gives. What is not counted: a
 * tokenized image a request holds while it is not in the cache (evicted, or dropped when its client
 * left) until the garbage collector frees its native handle; and mtmd's encoder buffers, which come
 * with the projector's own weights.
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

/**
 * A decode's memory at most, by the image's declared size: stb_image's pixels (three bytes each),
 * a float copy the projector's preprocessing makes (twelve), and the file's bytes copied for the
 * native thread. `maxPixels` and `maxBytes` are the request limits the header was checked against.
 */
export function inFlightDecodeBytes(limits: {maxPixels: number, maxBytes: number}): number {
    return limits.maxPixels * (3 + 3 * floatBytes) + limits.maxBytes;
}
