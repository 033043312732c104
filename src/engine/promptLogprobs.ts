import type {ControlledEvaluateInputItem, LlamaContextSequence, Token} from "node-llama-cpp";
import {sequenceState} from "./llamaInternals.js";
import {createLogprobReader} from "./tokenLogprobs.js";
import type {GenerationEvent} from "./generationEvents.js";

type PromptLogprobs = Extract<GenerationEvent, {type: "promptLogprobs"}>;

/**
 * Legacy completions' `echo` with `logprobs` (how evaluation harnesses score a text): every prompt
 * token's log probability given the tokens before it. The sequence's cache is dropped first, since
 * a cached token has no logits left, then all but the last prompt token are evaluated with an
 * output each (node-llama-cpp's controlledEvaluate), read from the raw logits as generated tokens'
 * are (tokenLogprobs.ts). The last prompt token is left to the generation's first step, as always.
 */
export async function scorePrompt(sequence: LlamaContextSequence, tokens: readonly Token[], top: number): Promise<Omit<PromptLogprobs, "type">> {
    const state = sequenceState(sequence);
    const reader = createLogprobReader(sequence.model, (config) => state._resolveSamplerConfig(config), top);
    try {
        const {token, bytes, special} = reader.spell(tokens[0]!);
        await sequence.clearHistory();
        if (tokens.length < 2)
            return {first: {token, bytes, special}, rest: []};
        const include = Math.max(1, reader.top);
        const items = tokens.slice(0, -1).map((token, index): ControlledEvaluateInputItem => [token, {generateNext: {
            logits: {filter: {tokens: [tokens[index + 1]!], includeTop: include}},
            totalLogitWeight: true,
            options: {temperature: 0}
        }}]);
        const outputs = await sequence.controlledEvaluate(items);
        const rest = items.map((_, index) => {
            const next = outputs[index]?.next;
            const chosen = tokens[index + 1]!;
            const logits = next?.logits;
            const chosenLogit = logits?.get(chosen);
            if (logits == null || chosenLogit == null || next?.totalLogitWeight == null)
                throw new Error("llama.cpp returned no logits for a prompt token");
            // The highest `include` come first, sorted; the chosen one follows when it is not among them.
            const topLogits = [...logits].slice(0, include);
            return reader.toLogprob({top: topLogits, chosen: [chosen, chosenLogit], weight: next.totalLogitWeight});
        });
        return {first: {token, bytes, special}, rest};
    } finally {
        reader.dispose();
    }
}
