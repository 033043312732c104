import type {Config} from "../config.js";
import type {ImageLimits} from "./imageInput.js";

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
