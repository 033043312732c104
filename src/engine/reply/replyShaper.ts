import type {LlamaGrammarEvaluationState, Token, TokenBias} from "node-llama-cpp";
import type {FinishReason, GenerationEvent} from "../generationEvents.js";

/** What the generation loop does after handing a sampled token to the shaper. */
export type ShaperStep = {
    events: GenerationEvent[],
    /** Forced text to evaluate after the sampled token (template markup the model need not write). */
    forced?: Token[],
    /** Set when the reply is complete. */
    finish?: Exclude<FinishReason, "length" | "abort">
};

/**
 * Turns sampled tokens into a reply of one format (free text, JSON, tool calls): decides what the
 * client sees, which grammar constrains the next token, and when the reply is complete.
 * The generation loop owns the sequence, the token budget and detokenization.
 */
export interface ReplyShaper {
    /** Forced tokens that open the reply (a tool call's prefix), and the events they stand for. */
    readonly opening: {tokens: Token[], events: GenerationEvent[]};
    /** The grammar for the next token, if any. */
    grammar(): LlamaGrammarEvaluationState | undefined;
    /** A bias for the next token, given how many completion tokens are left. */
    tokenBias(remainingTokens: number): TokenBias | undefined;
    /** The text of the next sampled token, and how many completion tokens are left after it. */
    push(text: string, remainingTokens: number): ShaperStep;
    /** The model ended the reply (an end-of-generation or template stop token); `rest` is text still being decoded. */
    end(rest: string): ShaperStep;
    /** The token budget ran out: whatever is still held back. */
    cut(rest: string): GenerationEvent[];
    /**
     * Tokens that detokenize to nothing but that the shaper must see as this text: a tool call's
     * opening marker where it is a control token (Mistral's `[TOOL_CALLS]`).
     */
    readonly shownTokens?: ReadonlyMap<Token, string>;
    /** Tokens of the reply that were a reasoning model's thought, for shapers that split one off. */
    readonly reasoningTokens?: number;
    /**
     * The marker token that opens a call the model may write freely (Qwen's `<tool_call>`,
     * DeepSeek's `<｜tool▁calls▁begin｜>`): written inside a thought, it ends the thought, as a call
     * is never left in the reasoning (reply/thoughtReply.ts).
     */
    readonly callTrigger?: string | null;
    /** The client stop sequence that ended the reply, once one has. */
    readonly stopSequence?: string | null;
}

export function textEvents(text: string): GenerationEvent[] {
    return text === "" ? [] : [{type: "text", text}];
}
