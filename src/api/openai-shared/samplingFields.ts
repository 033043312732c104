import type {Sampling} from "../../conversation/conversation.js";

/** The sampling fields OpenAI's chat completions, Responses and legacy completions share. */
export type OpenAISamplingFields = {
    temperature?: number | null,
    top_p?: number | null,
    seed?: number | null,
    presence_penalty?: number | null,
    frequency_penalty?: number | null,
    logit_bias?: Record<string, number> | null
};

/** OpenAI's sampling fields → the conversation's; a field left out (or null) is not set. */
export function toSampling(request: OpenAISamplingFields): Sampling {
    const sampling: Sampling = {};
    if (request.temperature != null)
        sampling.temperature = request.temperature;
    if (request.top_p != null)
        sampling.topP = request.top_p;
    if (request.seed != null)
        sampling.seed = request.seed;
    if (request.presence_penalty != null)
        sampling.presencePenalty = request.presence_penalty;
    if (request.frequency_penalty != null)
        sampling.frequencyPenalty = request.frequency_penalty;
    if (request.logit_bias != null)
        sampling.logitBias = request.logit_bias;
    return sampling;
}
