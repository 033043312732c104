import {imageErrors} from "./imageErrors.js";

/**
 * An image sent inline, as a `data:` URI (`data:image/png;base64,…`) or, as llama-server also
 * accepts, as bare base64 → its bytes. Strict where Node's decoder is lenient: Buffer.from(…,
 * "base64") skips characters it does not know, which would turn a mangled upload into some other
 * bytes instead of a 400. Line breaks and spaces (MIME-style base64) and the URL-safe alphabet
 * are tolerated. The size is checked from the text's length, before anything is decoded.
 */
const dataUriPattern = /^data:([^,;]*)((?:;[^,;]*)*),/i;

/** Whether a URL is written inline (data: URI or bare base64) rather than as a link to fetch. */
export function isInlineImage(url: string): boolean {
    return /^data:/i.test(url) || !/^[a-z][a-z0-9+.-]*:/i.test(url);
}

export function decodeInlineImage(url: string, param: string, maxBytes: number): Buffer {
    if (!/^data:/i.test(url))
        return decodeBase64(url, param, maxBytes, "the image URL is neither a URL nor valid base64");
    const match = dataUriPattern.exec(url.slice(0, 512));
    if (match == null)
        throw imageErrors.invalidUrl(param, "the data: URI has no ',' before its data");
    const mediaType = match[1]!.trim().toLowerCase();
    const parameters = match[2]!.toLowerCase().split(";").map((part) => part.trim());
    if (!mediaType.startsWith("image/"))
        throw imageErrors.invalidUrl(param, `the data: URI's type is '${mediaType || "none"}', not an image type (data:image/png;base64,…)`);
    if (!parameters.includes("base64"))
        throw imageErrors.invalidUrl(param, "the data: URI is not base64 (data:image/png;base64,…)");
    return decodeBase64(url.slice(match[0].length), param, maxBytes, "the data: URI's data is not valid base64");
}

function decodeBase64(text: string, param: string, maxBytes: number, invalid: string): Buffer {
    const compact = /\s/.test(text) ? text.replace(/\s+/g, "") : text;
    let end = compact.length;
    while (end > 0 && compact[end - 1] === "=")
        end--;
    const unpadded = compact.slice(0, end);
    const decodedLength = Math.floor(unpadded.length * 3 / 4);
    if (decodedLength > maxBytes)
        throw imageErrors.tooManyBytes(param, decodedLength, maxBytes);
    const alphabet = /^[A-Za-z0-9+/]*$/.test(unpadded) ? "base64" : /^[A-Za-z0-9_-]*$/.test(unpadded) ? "base64url" : null;
    const padding = compact.length - end;
    if (unpadded === "" || alphabet == null || unpadded.length % 4 === 1 || padding > 2 || (padding > 0 && compact.length % 4 !== 0))
        throw imageErrors.invalidUrl(param, unpadded === "" ? "the image data is empty" : invalid);
    return Buffer.from(unpadded, alphabet);
}
