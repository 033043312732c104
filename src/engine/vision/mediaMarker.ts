import {randomBytes} from "node:crypto";

const processTag = randomBytes(8).toString("hex");

/**
 * The text that stands for an image in the prompt the chat template renders, until the prompt is
 * split there and the image's tokens put in its place. Random per process, as llama-server's: text
 * a client writes cannot name an image slot it did not send. mtmd is given it too (it splits its
 * own input at it, native/vision.cpp).
 */
export const mediaMarker = `<__media_${processTag}__>`;

/**
 * The marker of the request's `index`th image (counted in message order): a template renders tool
 * results by their calls, not by their messages, so images are matched to their places by number.
 */
export function mediaMarkerFor(index: number): string {
    return `<__media_${processTag}_${index}__>`;
}

/** Finds every numbered marker in a rendered text; group 1 is the image's index. */
export const numberedMarker = new RegExp(`<__media_${processTag}_(\\d+)__>`, "g");
