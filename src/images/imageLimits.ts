import type {Config} from "../config.js";

/** What one request's images may be (from the settings: imageLimits() below). */
export type ImageLimits = {
    /** Bytes per image, inline or downloaded. */
    maxBytes: number,
    /** Width × height per image, as its header declares it, before anything decodes it. */
    maxPixels: number,
    /** Image parts per request (checkImageCount()). */
    maxImages: number,
    /** One download, every redirect included. */
    fetchTimeoutMs: number,
    maxRedirects: number,
    /** Fetch from loopback, private and link-local addresses too (--allow-private-image-urls). */
    allowPrivateUrls: boolean
};
/** One image download, redirects included: llama-server's 10 s. */
const fetchTimeoutMs = 10_000;
/** Redirects followed per image URL (each hop's address checked again). Image hosts and CDNs use one or two. */
const maxRedirects = 5;

/** The settings → the limits loadImage() applies to each image part of a request. */
export function imageLimits(config: Pick<Config, "maxImageBytes" | "maxImagePixels" | "maxImagesPerRequest" | "allowPrivateImageUrls">): ImageLimits {
    return {
        maxBytes: config.maxImageBytes,
        maxPixels: config.maxImagePixels,
        maxImages: config.maxImagesPerRequest,
        fetchTimeoutMs,
        maxRedirects,
        allowPrivateUrls: config.allowPrivateImageUrls
    };
}
