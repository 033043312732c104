import type {LlamaContextSequence, SequenceEvaluateOptions, Token} from "node-llama-cpp";
import {IncrementalDetokenizer, type DetokenizeFn} from "./incrementalDetokenizer.js";
import {StopMatcher} from "./stopMatcher.js";
import type {FinishReason, GenerationEvent, GenerationOptions, GenerationResult, PreparedPrompt, SamplingOptions} from "./types.js";

/** Penalties look at this many recent tokens (llama.cpp's penalty window is 64). */
const penaltyWindow = 256;

/**
 * Generates a reply on one sequence: reuses the cached prefix, evaluates the rest of the prompt in
 * batch-sized chunks (so an abort or a keep-alive never waits for a whole long prompt), then streams
 * the sampler's tokens as text, with stop sequences applied and tokens counted.
 */
export async function* generateOnSequence(
    sequence: LlamaContextSequence,
    detokenize: DetokenizeFn,
    prompt: PreparedPrompt,
    options: GenerationOptions,
    signal: AbortSignal
): AsyncGenerator<GenerationEvent, GenerationResult> {
    const promptTokens = prompt.tokens.length;
    // Keep at most all but the last prompt token: the sampler needs logits from a fresh evaluation.
    await sequence.adaptStateToTokens(prompt.tokens.slice(0, -1), false);
    const cachedTokens = sequence.nextTokenIndex;
    const result = (finishReason: FinishReason, completionTokens: number): GenerationResult =>
        ({finishReason, promptTokens, cachedTokens, completionTokens});

    const chunkSize = sequence.context.batchSize;
    let position = cachedTokens;
    while (position < promptTokens - 1) {
        if (signal.aborted)
            return result("abort", 0);
        const end = Math.min(promptTokens - 1, position + chunkSize);
        await sequence.evaluateWithoutGeneratingNewTokens(prompt.tokens.slice(position, end));
        position = end;
        if (position < promptTokens - 1)
            yield {type: "progress", evaluatedTokens: position, totalTokens: promptTokens};
    }

    const generated: Token[] = [];
    const stopTokens = new Set(prompt.stopTokens);
    const stopMatcher = new StopMatcher([...options.stop, ...prompt.stopStrings]);
    const detokenizer = new IncrementalDetokenizer(detokenize, prompt.tokens);
    let finishReason: FinishReason = "stop";

    // The generator ends by itself on an end-of-generation token (finish_reason "stop").
    for await (const token of sequence.evaluate(prompt.tokens.slice(position), toEvaluateOptions(options.sampling, generated))) {
        if (signal.aborted) {
            finishReason = "abort";
            break;
        }
        if (stopTokens.has(token))
            break;

        generated.push(token);
        const text = stopMatcher.push(detokenizer.push(token));
        if (text !== "")
            yield {type: "text", text};
        if (stopMatcher.hasStopped)
            break;
        if (generated.length >= options.maxTokens) {
            finishReason = "length";
            break;
        }
    }

    if (finishReason !== "abort") {
        const rest = stopMatcher.push(detokenizer.flush()) + stopMatcher.flush();
        if (rest !== "")
            yield {type: "text", text: rest};
    }
    return result(finishReason, generated.length);
}

function toEvaluateOptions(sampling: SamplingOptions, generated: readonly Token[]): SequenceEvaluateOptions {
    const penalize = sampling.presencePenalty !== 0 || sampling.frequencyPenalty !== 0;
    return {
        temperature: sampling.temperature,
        topP: sampling.topP,
        seed: sampling.seed,
        repeatPenalty: penalize
            ? {
                punishTokens: () => generated.slice(-penaltyWindow),
                maxPunishTokens: penaltyWindow,
                // OpenAI's penalties are additive; the multiplicative llama.cpp penalty stays off.
                penalty: 1,
                presencePenalty: sampling.presencePenalty,
                frequencyPenalty: sampling.frequencyPenalty
            }
            : undefined
    };
}
