import type {TokenLogprob} from "../../engine/generationEvents.js";
import type {ChatTokenLogprob, ChoiceLogprobs} from "./chatCompletionResponse.js";

export function toChatLogprob({token, logprob, bytes, top}: TokenLogprob): ChatTokenLogprob {
    return {token, logprob, bytes, top_logprobs: top.map((alternative) => ({token: alternative.token, logprob: alternative.logprob, bytes: alternative.bytes}))};
}

/**
 * Which sampled tokens' logprobs a reply's content carries. The engine reports each token as it is
 * sampled, before its text, and the text may come out later (held back while it could begin a stop
 * sequence) or never (the stop sequence itself, tool-call markup, a thought): text that comes out
 * carries the tokens sampled since the last text; a thought or a call drops them, and so does the
 * reply's end. Streamed and non-streamed replies go through this one rule, so they agree.
 */
export class ContentLogprobs {
    private pending: TokenLogprob[] = [];
    private readonly all: ChatTokenLogprob[] = [];

    public add(token: TokenLogprob): void {
        this.pending.push(token);
    }

    /** Text came out: the tokens it carries. */
    public takeForText(): ChatTokenLogprob[] {
        const taken = this.pending.map(toChatLogprob);
        this.pending = [];
        this.all.push(...taken);
        return taken;
    }

    /** What came out was not content (a thought, a call). */
    public discard(): void {
        this.pending = [];
    }

    /** A non-streamed reply's `logprobs`: every content token's. */
    public forReply(): ChoiceLogprobs {
        return {content: this.all, refusal: null};
    }
}
