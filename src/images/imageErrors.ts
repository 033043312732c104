import {BadRequestError} from "../errors.js";

/**
 * The 400s an image part can get, one constructor per reason so that every caller words it alike.
 * `param` is the request field that held the image (`messages[1].content[2].image_url.url`).
 * The codes, for clients that branch on them:
 * - `invalid_image_url`: not a data: URI, an http(s) URL or base64; another scheme (`file:`); bad base64
 * - `image_url_not_allowed`: an http(s) URL whose host is (or resolves to) a private, loopback, link-local … address
 * - `image_download_failed`: the fetch failed (HTTP status, timeout, too many redirects, DNS, connection)
 * - `invalid_image`: the bytes are no image this server knows, or its header is truncated or corrupt
 * - `unsupported_image_format`: an image of a format the decoder cannot read (WebP, TIFF, HEIC …)
 * - `image_too_large`: more bytes than --max-image-bytes, or more pixels than --max-image-pixels
 * - `too_many_images`: more image parts in one request than the limit
 */
export const imageErrors = {
    invalidUrl(param: string, why: string): BadRequestError {
        return new BadRequestError(`Invalid '${param}': ${why}. Send a data: URI (data:image/png;base64,…), base64 or an http(s) URL.`,
            {param, code: "invalid_image_url"});
    },

    /** `where`: "is a loopback address (127.0.0.0/8)", "resolves to a private address (10.0.0.0/8)". */
    notAllowed(param: string, host: string, where: string): BadRequestError {
        return new BadRequestError(`Invalid '${param}': the image URL's host '${host}' ${where}; this server fetches images only from public addresses `
            + "(start it with --allow-private-image-urls to allow private ones).", {param, code: "image_url_not_allowed"});
    },

    downloadFailed(param: string, url: string, why: string): BadRequestError {
        return new BadRequestError(`Invalid '${param}': could not download the image from ${shortUrl(url)}: ${why}.`, {param, code: "image_download_failed"});
    },

    invalidImage(param: string, why: string): BadRequestError {
        return new BadRequestError(`Invalid '${param}': ${why}. Send a PNG, JPEG, GIF or BMP image.`, {param, code: "invalid_image"});
    },

    unsupportedFormat(param: string, why: string): BadRequestError {
        return new BadRequestError(`Invalid '${param}': ${why}. Send a PNG or JPEG image (GIF and BMP work too).`, {param, code: "unsupported_image_format"});
    },

    tooManyBytes(param: string, bytes: number | null, maxBytes: number): BadRequestError {
        const size = bytes == null ? "more than" : `${bytes} bytes, over`;
        return new BadRequestError(`Invalid '${param}': the image is ${size} the limit of ${maxBytes} bytes per image (--max-image-bytes).`,
            {param, code: "image_too_large"});
    },

    tooManyPixels(param: string, width: number, height: number, maxPixels: number): BadRequestError {
        return new BadRequestError(`Invalid '${param}': the image is ${width}x${height} pixels (${width * height}), over the limit of ${maxPixels} pixels `
            + "per image (--max-image-pixels); send a smaller image.", {param, code: "image_too_large"});
    },

    tooManyImages(param: string, count: number, maxImages: number): BadRequestError {
        return new BadRequestError(`Invalid '${param}': the request holds ${count} images, over the limit of ${maxImages} per request (--max-images-per-request).`,
            {param, code: "too_many_images"});
    }
};

/** A URL as messages quote it: a query string can hold a signed token, and a URL can be very long. */
function shortUrl(url: string): string {
    const withoutQuery = url.replace(/[?#].*$/s, "");
    return withoutQuery.length > 120 ? `${withoutQuery.slice(0, 120)}…` : withoutQuery;
}
