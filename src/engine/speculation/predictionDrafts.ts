import type {Token} from "node-llama-cpp";
import type {DraftSource} from "./draftSources.js";
import {PredictionText} from "./predictionText.js";

/** How the prediction and the reply are read: the model's tokenizer, and its detokenizer with the tokens before. */
export type TokenText = {
    tokenize(text: string): Token[],
    detokenize(tokens: readonly Token[], before: readonly Token[]): string
};

/**
 * A client's prediction of the reply (OpenAI's Predicted Outputs), followed by its text rather than
 * its tokens: a model may spell the same text in other tokens than the tokenizer would (random
 * weights do so all the time), and the reply is still the prediction. While the reply's text goes
 * on as the prediction does, the draft is the prediction's own tokens from there (its tokenizer's,
 * or, from the middle of one of those, the rest of that token's text tokenized alone). After an
 * edit the prediction is found again by the reply's last characters, forward of where it was lost.
 * Usage's accepted_prediction_tokens are the prediction's tokens whose text the reply reproduced;
 * the rest are its rejected_prediction_tokens.
 */
export class PredictionDrafts implements DraftSource {
    public readonly name = "prediction";
    private readonly text: PredictionText;
    /** The reply's tokens whose text is not whole yet (a character split across tokens). */
    private pending: Token[] = [];
    private replyTail: Token[];

    public constructor(prediction: string, private readonly reader: TokenText, promptTail: readonly Token[]) {
        this.text = new PredictionText(prediction, reader);
        this.replyTail = promptTail.slice(-4);
    }

    public get accepted(): number {
        return this.text.reproducedTokens();
    }

    public get rejected(): number {
        return this.text.tokenCount - this.accepted;
    }

    public propose(count: number): Token[] {
        return this.text.tokensFromCursor(count);
    }

    public observe(tokens: readonly Token[]): void {
        this.pending.push(...tokens);
        const text = this.reader.detokenize(this.pending, this.replyTail);
        // Half a character: wait for the token that completes it.
        if (text.endsWith("\uFFFD"))
            return;
        this.replyTail = [...this.replyTail, ...this.pending].slice(-4);
        this.pending = [];
        this.text.follow(text);
    }
}
