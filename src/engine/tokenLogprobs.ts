import type {LlamaModel, Token} from "node-llama-cpp";
import {createNativeSampler, type NativeContext, type NativeSampler} from "./llamaInternals.js";
import type {TokenLogprob, TopLogprob} from "./generationEvents.js";

/** OpenAI's most alternatives per token (`top_logprobs` 0–20). */
export const maxTopLogprobs = 20;

type SpelledToken = Pick<TokenLogprob, "token" | "bytes" | "special">;

/** What llama.cpp hands back for one position: the `top` highest logits (sorted), the chosen token's, and Σ exp(logit − highest). */
export type RawLogits = {top: Array<[Token, number]>, chosen: [Token, number], weight: number};

/**
 * Log probabilities as OpenAI and llama-server report them: the log-softmax of the model's raw
 * logits over its whole vocabulary, before temperature, `logit_bias`, penalties, grammar or top-k/p
 * (llama-server's default, `post_sampling_probs` false). node-llama-cpp's own `probabilities` are
 * the sampler chain's, after truncation and temperature, so they are not used.
 *
 * The numbers come from a second native sampler that is greedy and nothing else (greedy leaves
 * the logits as they are): asked for the top logits, the chosen token's and the total weight
 * Σ exp(logit − max), llama.cpp computes them over the full vocabulary in C++, and
 * logprob(t) = logit(t) − max − ln(weight). That costs a sort of the vocabulary per token, which
 * is why only requests that ask for logprobs create a reader.
 */
export class LogprobReader {
    private readonly native: NativeSampler;
    private readonly spelled = new Map<Token, SpelledToken>();
    private context: Token[] | undefined;

    /** `top`: alternatives per token (0–20). */
    public constructor(private readonly model: LlamaModel, config: object, public readonly top: number) {
        this.native = createNativeSampler(model);
        this.native.applyConfig(config);
    }

    /** The logprobs at a batch output whose next token is `chosen` (sampled, or the prompt's next). */
    public async read(context: NativeContext, output: number, chosen: Token): Promise<TokenLogprob> {
        const [, , , pairs, weight] = await context.sampleToken(output, this.native, false, false, [[chosen], false, false, false, Math.max(1, this.top)], true);
        if (pairs == null || pairs.length < 4 || weight == null)
            throw new Error("llama.cpp returned no logits to compute log probabilities from");
        const top: Array<[Token, number]> = [];
        for (let index = 0; index < pairs.length - 2; index += 2)
            top.push([pairs[index] as Token, pairs[index + 1]!]);
        return this.toLogprob({top, chosen: [pairs.at(-2) as Token, pairs.at(-1)!], weight});
    }

    /** The numbers as the protocol formatters take them: each token spelled, with its bytes. */
    public toLogprob(raw: RawLogits): TokenLogprob {
        const logprobs = logSoftmax(raw);
        return {
            ...this.spell(raw.chosen[0]),
            logprob: logprobs.chosen,
            top: raw.top.slice(0, this.top).map(([token], index): TopLogprob => {
                const {token: text, bytes} = this.spell(token);
                return {token: text, bytes, logprob: logprobs.top[index]!};
            })
        };
    }

    /** A token as text (special tokens by their markup) and its UTF-8 bytes; `special` when it adds nothing to the reply's text. */
    public spell(token: Token): SpelledToken {
        let spelled = this.spelled.get(token);
        if (spelled == null) {
            // After another token: SentencePiece drops a piece's leading space at the start of a text.
            this.context ??= this.model.tokenize("x", false);
            const text = this.model.detokenize([token], false, this.context);
            const shown = text === "" ? this.model.detokenize([token], true) : text;
            spelled = {token: shown, bytes: [...Buffer.from(shown, "utf8")], special: text === "" && shown !== ""};
            this.spelled.set(token, spelled);
        }
        return spelled;
    }

    public dispose(): void {
        this.native.dispose();
    }

}

/** The log-softmax of the chosen and top logits, given Σ exp(logit − highest) over the vocabulary. */
export function logSoftmax({top, chosen, weight}: RawLogits): {chosen: number, top: number[]} {
    const highest = top[0]?.[1] ?? chosen[1];
    const logNormalizer = highest + Math.log(weight);
    // Never above 0: float32 rounding of the sum could otherwise give the top token +1e-7.
    const logprob = (logit: number) => Math.min(0, logit - logNormalizer);
    return {chosen: logprob(chosen[1]), top: top.map(([, logit]) => logprob(logit))};
}

/** The greedy-only sampler's config for the reader: `resolveConfig` is node-llama-cpp's own translation. */
export function createLogprobReader(model: LlamaModel, resolveConfig: (options: object) => object, top: number): LogprobReader {
    return new LogprobReader(model, resolveConfig({temperature: 0}), Math.min(maxTopLogprobs, Math.max(0, top)));
}
