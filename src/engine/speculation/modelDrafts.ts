import type {LlamaContextSequence, Token} from "node-llama-cpp";
import {isImagePlaceholder} from "../vision/imagePrompt.js";

/** A draft model's sequence beside one of its target's: it continues a token history greedily. */
export interface DraftContinuation {
    /** Brings the draft's sequence to `history` but its last token (keeping what it already holds of it), without drafting. */
    warm(history: readonly Token[]): Promise<void>,
    /** Brings the draft's sequence to `history` (keeping what it already holds of it) and returns the `count` greedy tokens after it. */
    continue(history: readonly Token[], count: number): Promise<Token[]>
}

/** A target model's draft model (chatserve.json's `draft`), as its generations' speculation sees it. */
export type DraftModelLink = {
    /** The draft's sequence paired with a target sequence. */
    sequenceFor(target: LlamaContextSequence): DraftContinuation | undefined,
    /** One draft step's share of a target step's time: what a drafted token costs beyond its row in the target's batch. */
    readonly stepCost: number,
    /** A fixed draft length (chatserve.json's `draft_tokens`, llama-server's --spec-draft-n-max); absent: adapted to acceptance. */
    readonly tokens?: number
};

/**
 * Drafts from a draft model: a smaller model of the same tokenizer, run greedily ahead of the
 * target on a sequence of its own that mirrors the target's tokens (the prompt, then every kept
 * token). Its guesses are only guesses: the target samples every token it keeps
 * (draftVerification.ts), so the reply is the target's whatever the draft says. A draft model that
 * fails (its context full, a llama.cpp error) stops drafting for this reply; the reply goes on.
 * Unlike draftSources.ts's sources its guesses take time (the draft model's steps): it proposes asynchronously.
 */
export class ModelDrafts {
    private readonly history: Token[];
    private failed = false;
    private readonly warmed: Promise<void>;

    /**
     * The draft model reads the prompt at once, beside the target's first steps: a draft model first
     * needed mid-reply (when a prediction loses its place) would otherwise stall the reply while it
     * reads a long prompt.
     */
    public constructor(private readonly sequence: DraftContinuation, prompt: readonly Token[]) {
        this.history = [...prompt];
        // An image's placeholders are no vocabulary's tokens, and the draft never saw the image: it sits such a reply out.
        this.failed = prompt.some(isImagePlaceholder);
        this.warmed = this.failed ? Promise.resolve() : sequence.warm(this.history).catch(() => {
            this.failed = true;
        });
    }

    public async propose(count: number): Promise<Token[]> {
        await this.warmed;
        if (this.failed || count <= 0)
            return [];
        try {
            return await this.sequence.continue(this.history, count);
        } catch {
            this.failed = true;
            return [];
        }
    }

    public observe(tokens: readonly Token[]): void {
        this.history.push(...tokens);
    }
}
