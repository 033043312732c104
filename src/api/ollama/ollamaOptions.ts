import type {Sampling} from "../../conversation/conversation.js";
import {BadRequestError} from "../../errors.js";
import type {OllamaOptions} from "./ollamaRequest.js";

/** `options` → the conversation core's sampling: what the client set; the rest is the model's default, filled in below. */
export function toSampling(options: OllamaOptions | null | undefined): Sampling {
    const sampling: Sampling = {};
    if (options == null)
        return sampling;
    const set = <K extends keyof Sampling>(key: K, value: Sampling[K] | null | undefined) => {
        if (value != null)
            sampling[key] = value;
    };
    set("temperature", options.temperature);
    set("topP", options.top_p);
    // Ollama's top_k 0 means "off", as llama.cpp's does.
    set("topK", options.top_k);
    set("minP", options.min_p);
    set("seed", options.seed);
    set("repeatPenalty", options.repeat_penalty);
    set("presencePenalty", options.presence_penalty);
    set("frequencyPenalty", options.frequency_penalty);
    return sampling;
}

/** `num_predict`: a positive count is the reply's limit; Ollama's -1 (none) and -2 (fill the context) are the room the prompt leaves. */
export function maxTokensOf(options: OllamaOptions | null | undefined): {maxTokens?: number} {
    const limit = options?.num_predict;
    return limit != null && limit > 0 ? {maxTokens: limit} : {};
}

export function stopOf(options: OllamaOptions | null | undefined): string[] {
    return options?.stop ?? [];
}

/**
 * `num_ctx` against the context the model is served with. Asking for less is honoured as it is:
 * the request gets at least that. Asking for more is refused with the size chatserve serves and how
 * to serve more, never cut silently: Ollama's quiet truncation at its default context is what breaks
 * agents, whose tool definitions and first turns fall off the front of a long prompt unseen.
 * `contextLength` null: not known before the model loads, so not checked.
 */
export function checkNumCtx(options: OllamaOptions | null | undefined, model: string, contextLength: number | null): void {
    const asked = options?.num_ctx;
    if (asked == null || contextLength == null || asked <= contextLength)
        return;
    throw new BadRequestError(
        `options.num_ctx ${asked} is more than the ${contextLength} tokens chatserve serves '${model}' with; ` +
        "send a num_ctx up to that, or serve the model with a larger context (--ctx-size, or ctx_size in chatserve.json) if memory allows.",
        {param: "options.num_ctx", code: "context_length_exceeded"});
}
