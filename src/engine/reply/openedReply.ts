import type {LlamaGrammarEvaluationState, Token, TokenBias} from "node-llama-cpp";
import type {GenerationEvent} from "../generationEvents.js";
import type {ReplyShaper, ShaperStep} from "./replyShaper.js";

/**
 * A reply that the template's own markup opens, forced before the inner shaper's first token:
 * GPT-OSS's `<|channel|>final<|message|>` before a JSON answer, which the model was trained to
 * write there (a constrained reply cannot leave it room to). Everything else is the inner shaper's.
 */
export class OpenedReply implements ReplyShaper {
    public readonly opening: {tokens: Token[], events: GenerationEvent[]};

    public constructor(private readonly inner: ReplyShaper, markup: readonly Token[]) {
        this.opening = {tokens: [...markup, ...inner.opening.tokens], events: inner.opening.events};
    }

    public get shownTokens(): ReadonlyMap<Token, string> | undefined {
        return this.inner.shownTokens;
    }

    public get stopSequence(): string | null | undefined {
        return this.inner.stopSequence;
    }

    public grammar(): LlamaGrammarEvaluationState | undefined {
        return this.inner.grammar();
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return this.inner.tokenBias(remainingTokens);
    }

    public push(text: string, remainingTokens: number): ShaperStep {
        return this.inner.push(text, remainingTokens);
    }

    public end(rest: string): ShaperStep {
        return this.inner.end(rest);
    }

    public cut(rest: string): GenerationEvent[] {
        return this.inner.cut(rest);
    }
}
