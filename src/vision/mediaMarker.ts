import {randomBytes} from "node:crypto";

/**
 * The text that stands for an image in a rendered prompt, until the prompt is split there and the
 * image's tokens put in its place. Random per process, as llama-server's: text a client writes
 * cannot name an image slot it did not send.
 */
export const mediaMarker = `<__media_${randomBytes(8).toString("hex")}__>`;
