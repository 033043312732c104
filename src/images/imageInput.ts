import {createHash} from "node:crypto";
import {ImageHeaderError} from "./headerBytes.js";
import type {ImageLimits} from "./imageLimits.js";
import {downloadImage} from "./imageDownload.js";
import {imageErrors} from "./imageErrors.js";
import {readImageHeader} from "./imageHeader.js";
import {decodeInlineImage, isInlineImage} from "./inlineImage.js";
import {checkPngData} from "./pngData.js";

/** An image part's bytes, checked and ready for the native decoder. */
export type ImageInput = {bytes: Buffer, id: string /* sha256 hex of bytes, as mtmd's bitmap id */, mime: string, width: number, height: number};


/**
 * An image part's URL → its checked bytes: a data: URI or bare base64 decoded, an http(s) URL
 * downloaded within the limits. The format and the pixel size are read from the header, so
 * nothing is decoded that the native decoder cannot read or that would unpack into more pixels
 * than allowed (a 100-byte PNG can claim 100000x100000), nor a PNG whose data inflates to more
 * than its header declares (pngData.ts). Every refusal is a BadRequestError naming
 * `param`; a request whose `signal` aborts gets the signal's reason.
 * The id is the bytes' SHA-256, as mtmd names a bitmap: the same image in the next turn is the
 * same id, whatever URL it came by, so its cached tokens can be reused.
 */
export async function loadImage(url: string, param: string, limits: ImageLimits, signal: AbortSignal): Promise<ImageInput> {
    const text = url.trim();
    const bytes = isInlineImage(text)
        ? decodeInlineImage(text, param, limits.maxBytes)
        : await downloadImage(parseFetchableUrl(text, param), param, limits, signal);
    const {format, mime, width, height} = readHeader(bytes, param);
    if (width * height > limits.maxPixels)
        throw imageErrors.tooManyPixels(param, width, height, limits.maxPixels);
    if (format === "png")
        await checkPngData(bytes, signal).catch((error: unknown) => rethrowHeaderError(error, param));
    return {bytes, id: createHash("sha256").update(bytes).digest("hex"), mime, width, height};
}

/** Throws the 400 for a request with more image parts than allowed; `param` names the request's messages. */
export function checkImageCount(count: number, limits: ImageLimits, param: string): void {
    if (count > limits.maxImages)
        throw imageErrors.tooManyImages(param, count, limits.maxImages);
}

function parseFetchableUrl(text: string, param: string): URL {
    let url: URL;
    try {
        url = new URL(text);
    } catch {
        throw imageErrors.invalidUrl(param, "the image URL is not a valid URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
        throw imageErrors.invalidUrl(param, `${url.protocol} URLs are not fetched (only http and https)`);
    return url;
}

function readHeader(bytes: Buffer, param: string): ReturnType<typeof readImageHeader> {
    try {
        return readImageHeader(bytes);
    } catch (error) {
        return rethrowHeaderError(error, param);
    }
}

/** A header's refusal → the part's 400; anything else (the client's abort) as it is. */
function rethrowHeaderError(error: unknown, param: string): never {
    if (!(error instanceof ImageHeaderError))
        throw error;
    throw error.unsupported ? imageErrors.unsupportedFormat(param, error.message) : imageErrors.invalidImage(param, error.message);
}
