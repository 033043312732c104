import type {TokenLogprob} from "../../engine/generationEvents.js";
import type {CompletionLogprobs} from "./completionResponse.js";

type PromptToken = Omit<TokenLogprob, "logprob" | "top">;

/**
 * Legacy completions' `logprobs` (the integer 0–5): for each token its text, its logprob, a map of
 * the `logprobs` likeliest tokens to theirs plus the chosen one (so up to logprobs + 1 entries, as
 * OpenAI documents), and its character offset. Offsets count from the start of the prompt, with
 * `echo` or without, as OpenAI's do; markup such as BOS takes no room in the text.
 *
 * Tokens are taken as their text comes out, the same rule as chat's (api/openai-chat/contentLogprobs.ts): a
 * stream's chunk carries the tokens of its text, and a stop sequence's tokens, whose text never
 * comes, are dropped.
 */
export class CompletionLogprobsBuilder {
    private pending: CompletionLogprobs = emptyLogprobs();
    private readonly all: CompletionLogprobs = emptyLogprobs();
    private pendingTokens: TokenLogprob[] = [];

    public constructor(private offset: number) {}

    /** The prompt's tokens, for `echo`: the first has no logprob (nothing predicts it). */
    public addPrompt(first: PromptToken, rest: readonly TokenLogprob[]): CompletionLogprobs {
        const taken = emptyLogprobs();
        this.append(taken, first, null, null);
        for (const token of rest)
            this.append(taken, token, token.logprob, topOf(token));
        merge(this.all, taken);
        return taken;
    }

    public add(token: TokenLogprob): void {
        this.pendingTokens.push(token);
    }

    /** Text came out: the logprobs of the tokens sampled since the last text. */
    public takeForText(): CompletionLogprobs {
        for (const token of this.pendingTokens)
            this.append(this.pending, token, token.logprob, topOf(token));
        this.pendingTokens = [];
        const taken = this.pending;
        this.pending = emptyLogprobs();
        merge(this.all, taken);
        return taken;
    }

    /** Every token taken so far (a non-streamed choice's `logprobs`). */
    public forChoice(): CompletionLogprobs {
        return this.all;
    }

    private append(into: CompletionLogprobs, token: PromptToken, logprob: number | null, top: Record<string, number> | null): void {
        into.tokens.push(token.token);
        into.token_logprobs.push(logprob);
        into.top_logprobs.push(top);
        into.text_offset.push(this.offset);
        if (!token.special)
            this.offset += token.token.length;
    }
}

/** The likeliest tokens, then the chosen one where it is not among them. */
function topOf(token: TokenLogprob): Record<string, number> {
    const top: Record<string, number> = {};
    for (const alternative of token.top)
        top[alternative.token] ??= alternative.logprob;
    top[token.token] ??= token.logprob;
    return top;
}

function emptyLogprobs(): CompletionLogprobs {
    return {tokens: [], token_logprobs: [], top_logprobs: [], text_offset: []};
}

function merge(into: CompletionLogprobs, from: CompletionLogprobs): void {
    into.tokens.push(...from.tokens);
    into.token_logprobs.push(...from.token_logprobs);
    into.top_logprobs.push(...from.top_logprobs);
    into.text_offset.push(...from.text_offset);
}
