import type {ApiError} from "../../errors.js";
import {useErrorEnvelope, type ErrorEnvelope} from "../../http/errorEnvelope.js";

/** Ollama's error body: one field, the sentence (its clients print `error` and nothing else). */
export type OllamaErrorBody = {error: string};

/**
 * An ApiError as Ollama's API answers it: `{"error": "…"}` with the error's own status (Ollama's
 * are the same: 400 for a bad request, 404 for an unknown model, 401/403 for a key). chatserve's
 * param is added to the sentence where it does not name it already, as the envelope has no field for it.
 */
export function toOllamaError(error: ApiError): {status: number, body: OllamaErrorBody} {
    const detail = error.param != null && !error.message.includes(error.param) ? ` (${error.param})` : "";
    // Ollama words an unknown model "model … not found", and clients look for those words (to offer a pull).
    const lead = error.code === "model_not_found" ? "model not found: " : "";
    return {status: error.status, body: {error: lead + error.message + detail}};
}

/** Mid-stream, Ollama's clients read an object with `error` as one more NDJSON line and throw it. */
export const ollamaErrors: ErrorEnvelope = {
    response: toOllamaError,
    streamEvent: (error) => ({data: toOllamaError(error).body})
};

/**
 * Marks an `/api/*` request: its errors in Ollama's envelope. Mounted before the Host check, the
 * key and the body (app.ts), so a bad key or malformed JSON is answered in it too.
 */
export const useOllamaErrors = useErrorEnvelope(ollamaErrors);
