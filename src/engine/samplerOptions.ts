import type {LlamaModel, Token, TokenBias} from "node-llama-cpp";
import {tokenBiasOf} from "./llamaInternals.js";
import type {ReplyGrammars} from "./reply/grammars.js";
import type {ReplyShaper} from "./reply/replyShaper.js";
import type {StepSamplingOptions} from "./stepSampler.js";
import type {GenerationOptions} from "./generationOptions.js";

/** Penalties look at this many recent tokens (llama.cpp's penalty window is 64). */
const penaltyWindow = 256;

/** The sampler's options, and whether they change as the reply grows (grammar, token bias, penalties). */
export function samplingFor(
    model: LlamaModel, options: GenerationOptions, shaper: ReplyShaper, grammars: ReplyGrammars, generated: readonly Token[]
): [StepSamplingOptions, boolean] {
    const {sampling} = options;
    const repeatPenalty = sampling.repeatPenalty ?? 1;
    const penalize = sampling.presencePenalty !== 0 || sampling.frequencyPenalty !== 0 || repeatPenalty !== 1;
    const sampler: StepSamplingOptions = {
        temperature: sampling.temperature,
        topP: sampling.topP,
        ...(sampling.topK == null ? {} : {topK: sampling.topK}),
        ...(sampling.minP == null ? {} : {minP: sampling.minP}),
        seed: sampling.seed,
        repeatPenalty: penalize
            ? {
                punishTokens: () => generated.slice(-penaltyWindow),
                maxPunishTokens: penaltyWindow,
                // OpenAI's penalties are additive; the multiplicative llama.cpp one comes only from the model's settings.
                penalty: repeatPenalty,
                presencePenalty: sampling.presencePenalty,
                frequencyPenalty: sampling.frequencyPenalty
            }
            : undefined
    };
    const {logitBias} = sampling;
    if (options.format.type === "text")
        return [logitBias == null ? sampler : {...sampler, tokenBias: tokenBiasOf(model, logitBias)}, penalize];
    // The client's bias goes on top of the grammar's (a ban stays a ban: -Infinity plus anything).
    const withClientBias = logitBias == null ? (bias: TokenBias) => bias : cachedCombination(model, logitBias);
    return [{
        ...sampler,
        grammarEvaluationState: () => shaper.grammar(),
        tokenBias: () => withClientBias(grammars.nextBias(shaper.tokenBias(options.maxTokens - generated.length), generated.at(-1)))
    }, true];
}

/** A grammar's bias with the client's added, built once per grammar bias (they are few and reused). */
function cachedCombination(model: LlamaModel, logitBias: ReadonlyMap<number, number>): (bias: TokenBias) => TokenBias {
    const combined = new WeakMap<TokenBias, TokenBias>();
    return (bias) => {
        let result = combined.get(bias);
        if (result == null) {
            result = tokenBiasOf(model, logitBias, bias);
            combined.set(bias, result);
        }
        return result;
    };
}
