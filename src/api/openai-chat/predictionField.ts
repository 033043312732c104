import {z} from "zod";
import {BadRequestError} from "../../errors.js";

/**
 * OpenAI's Predicted Outputs: `prediction: {type: "content", content}`, the reply the client expects
 * (a file it sent, with a few lines to change). The content is a string or text parts, as a
 * message's content is; the parts are joined into one text.
 */
export const predictionField = z.object({
    type: z.literal("content", {error: "prediction.type must be 'content'"}),
    content: z.union([
        z.string(),
        z.array(z.object({type: z.literal("text", {error: "a prediction's content parts must be of type 'text'"}), text: z.string()}))
    ], {error: "prediction.content must be a string or an array of text parts"})
}, {error: "prediction must be an object: {\"type\": \"content\", \"content\": ...}"});

export type Prediction = z.infer<typeof predictionField>;

/** The fields a prediction refuses, as OpenAI does (each one's 400 names it). */
type PredictionCompanions = {
    n?: number | null, logprobs?: boolean | null, tools?: unknown[] | null,
    presence_penalty?: number | null, frequency_penalty?: number | null
};

/**
 * The prediction's text, or a 400 for what OpenAI refuses beside one: several choices, logprobs,
 * tools, and positive presence or frequency penalties. (Each of these changes how every token is
 * sampled or shaped, so none could check a guessed token without returning to the loop per token;
 * max_completion_tokens, which OpenAI also refuses, is no such thing and is allowed.)
 */
export function predictionText(prediction: Prediction | null | undefined, request: PredictionCompanions): string | undefined {
    if (prediction == null)
        return undefined;
    const refuse = (param: string, what: string): never => {
        throw new BadRequestError(`Invalid '${param}': ${what} is not supported with predicted outputs ('prediction').`, {param, code: "invalid_value"});
    };
    if (request.n != null && request.n > 1)
        refuse("n", "more than one choice");
    if (request.logprobs === true)
        refuse("logprobs", "logprobs");
    if (request.tools != null && request.tools.length > 0)
        refuse("tools", "function calling");
    if (request.presence_penalty != null && request.presence_penalty > 0)
        refuse("presence_penalty", "a positive presence penalty");
    if (request.frequency_penalty != null && request.frequency_penalty > 0)
        refuse("frequency_penalty", "a positive frequency penalty");
    return typeof prediction.content === "string" ? prediction.content : prediction.content.map((part) => part.text).join("");
}
