import type {SequenceEvaluateOptions, Token} from "node-llama-cpp";
import type {NativeContext, NativeSampler} from "./llamaInternals.js";
import type {LogprobReader} from "./tokenLogprobs.js";
import type {TokenLogprob} from "./generationEvents.js";

/** How a generation samples: node-llama-cpp's evaluate options (functions are read again before every token). */
export type StepSamplingOptions = Pick<SequenceEvaluateOptions, "temperature" | "topP" | "topK" | "minP" | "seed" | "repeatPenalty" | "grammarEvaluationState" | "tokenBias">;

/** node-llama-cpp's native sampler for one generation, configured as its own evaluate does. */
export class StepSampler {
    private configured = false;
    /** The last sampled token's log probability, when the sampler reads them. */
    public logprob: TokenLogprob | undefined;

    public constructor(
        private readonly native: NativeSampler, private readonly config: () => object, private readonly changesPerToken: boolean,
        private readonly logprobs?: LogprobReader
    ) {}

    public async sample(context: NativeContext, output: number): Promise<Token> {
        // Options that are functions (grammar state, token bias, penalized tokens) change as the reply grows.
        if (this.changesPerToken || !this.configured) {
            this.native.applyConfig(this.config());
            this.configured = true;
        }
        const token = await context.sampleToken(output, this.native);
        if (token === -1)
            throw new Error("llama.cpp sampled no token");
        if (this.logprobs != null)
            this.logprob = await this.logprobs.read(context, output, token as Token);
        return token as Token;
    }

    public dispose(): void {
        this.native.dispose();
        this.logprobs?.dispose();
    }
}
