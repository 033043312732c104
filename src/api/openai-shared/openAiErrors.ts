import type {ApiError} from "../../errors.js";
import type {ErrorEnvelope} from "../../http/errorEnvelope.js";

/** OpenAI's error envelope: `{"error": {"message", "type", "param", "code"}}`. */
export type OpenAiErrorBody = {
    error: {message: string, type: string, param: string | null, code: string | null}
};

export function openAiErrorBody(error: ApiError): OpenAiErrorBody {
    return {error: {message: error.message, type: error.type, param: error.param, code: error.code}};
}

/**
 * Every API of OpenAI's shape answers in it, and so does every path no API claims (a 404, a
 * request Node's parser refused): it is chatserve's default. Mid-stream it is a data-only event,
 * which the official SDKs raise as an APIError.
 */
export const openAiErrors: ErrorEnvelope = {
    response: (error) => ({status: error.status, body: openAiErrorBody(error)}),
    streamEvent: (error) => ({data: openAiErrorBody(error)})
};
