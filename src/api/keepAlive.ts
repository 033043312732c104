import {keepAliveValue, type KeepAlive} from "../models/keepAlive.js";

/**
 * `keep_alive` on the wire: the extension field every generating and embedding endpoint accepts
 * (Ollama's, which the OpenAI SDKs can send in their extra body), and how /v1/models reports one.
 * What a keep-alive is, and how it is spelled, is the models' (models/keepAlive.ts).
 */

/** How long the model stays loaded after this request; absent or null: the model's own, else --keep-alive. */
export const keepAliveField = keepAliveValue.nullish();

/** In seconds, as /v1/models reports it (Ollama's convention): -1 for ever. */
export function keepAliveSeconds(keepAlive: KeepAlive): number {
    return keepAlive === "forever" ? -1 : keepAlive.ms / 1000;
}
