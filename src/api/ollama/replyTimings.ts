import type {GenerationResult} from "../../engine/generationEvents.js";

/** When a request's stages began (`performance.now()`), as its route and service saw them. */
export type RequestClock = {
    /** The route received the request. */
    receivedAt: number,
    /** The model was held (loaded first if need be), the prompt rendered and a sequence leased: generation begins. */
    generationAt: number
};

/** Ollama's counts and durations (nanoseconds) on a reply's last object. */
export type OllamaMetrics = {
    total_duration: number,
    load_duration: number,
    prompt_eval_count: number,
    prompt_eval_duration: number,
    eval_count: number,
    eval_duration: number
};

/**
 * Measured, never estimated: `load_duration` is the time before generation could begin (holding the
 * model, loading it when it was not loaded, rendering the prompt, waiting for a sequence);
 * `prompt_eval_duration` runs from there to the first sampled token (the prompt's evaluation, of
 * what the cache lacked); `eval_duration` from the first token to the end. Clients divide
 * `eval_count` by `eval_duration` for tokens per second, which is then the decode's own rate.
 */
export function ollamaMetrics(result: GenerationResult, clock: RequestClock, now: number = performance.now()): OllamaMetrics {
    const endedAt = result.timing?.endedAt ?? now;
    const firstTokenAt = result.timing?.firstTokenAt ?? endedAt;
    return {
        total_duration: nanoseconds(endedAt - clock.receivedAt),
        load_duration: nanoseconds(clock.generationAt - clock.receivedAt),
        prompt_eval_count: result.promptTokens,
        prompt_eval_duration: nanoseconds(firstTokenAt - clock.generationAt),
        eval_count: result.completionTokens,
        eval_duration: nanoseconds(endedAt - firstTokenAt)
    };
}

function nanoseconds(ms: number): number {
    return Math.max(0, Math.round(ms * 1e6));
}

/** Ollama's `done_reason`: "length" when the token limit (or the context) cut the reply, "stop" otherwise (tool calls included). */
export function doneReason(result: GenerationResult): "stop" | "length" {
    return result.finishReason === "length" ? "length" : "stop";
}
