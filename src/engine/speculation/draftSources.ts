import type {Token} from "node-llama-cpp";
import {NgramIndex} from "./ngramIndex.js";

/** Where a draft came from, as /metrics labels it. */
export type DraftSourceName = "prediction" | "lookup";

/** Proposes the tokens that may come next in a reply, and follows the reply as it grows. */
export interface DraftSource {
    readonly name: DraftSourceName,
    /** Up to `count` tokens it expects next (none: it has no guess here). */
    propose(count: number): Token[],
    /** The reply grew by these tokens (sampled, whether or not they were drafted). */
    observe(tokens: readonly Token[]): void
}

/** How many tokens must agree before a source claims to know where the reply is (llama.cpp's lookup uses 3 too). */
const runLength = 3;

/**
 * A client's prediction of the reply (OpenAI's Predicted Outputs): followed token by token while the
 * reply reproduces it, and found again after an edit by the reply's last tokens, forward of where it
 * lost it (an edited file goes on where the edit ends). It also counts, for usage, which of the
 * prediction's tokens the reply reproduced: OpenAI's accepted_prediction_tokens; the others are
 * its rejected_prediction_tokens.
 */
export class PredictionDrafts implements DraftSource {
    public readonly name = "prediction";
    private readonly index: NgramIndex;
    /** The prediction's token the reply is expected to write next; undefined while it is lost. */
    private cursor: number | undefined = 0;
    private readonly reproduced: Uint8Array;
    private reproducedCount = 0;
    /** The reply's last tokens, to find the prediction again by. */
    private recent: Token[] = [];
    /** Where the reply last left the prediction (searching again starts there). */
    private lostAt = 0;

    public constructor(private readonly prediction: readonly Token[]) {
        this.index = new NgramIndex(runLength, prediction);
        this.reproduced = new Uint8Array(prediction.length);
    }

    public get accepted(): number {
        return this.reproducedCount;
    }

    public get rejected(): number {
        return this.prediction.length - this.reproducedCount;
    }

    public propose(count: number): Token[] {
        return this.cursor == null ? [] : this.prediction.slice(this.cursor, this.cursor + count);
    }

    public observe(tokens: readonly Token[]): void {
        for (const token of tokens) {
            this.recent = [...this.recent.slice(1 - runLength), token];
            if (this.cursor != null && this.prediction[this.cursor] === token) {
                this.mark(this.cursor);
                this.cursor++;
            } else {
                this.lostAt = this.cursor ?? this.lostAt;
                this.cursor = this.findAgain();
            }
        }
    }

    /** The reply's last tokens in the prediction: their first occurrence from where it was lost on, else the latest before. */
    private findAgain(): number | undefined {
        const positions = this.index.occurrences(this.recent);
        if (positions.length === 0)
            return undefined;
        const found = positions.filter((position) => position >= this.lostAt).at(-1) ?? positions[0]!;
        for (let position = found - runLength; position < found; position++)
            this.mark(position);
        return found;
    }

    private mark(position: number): void {
        if (this.reproduced[position] === 0) {
            this.reproduced[position] = 1;
            this.reproducedCount++;
        }
    }
}

/**
 * Draftless lookup: the prompt and the reply so far, searched for the reply's last tokens; what
 * followed their latest earlier occurrence is the guess. Pays where replies repeat what they read
 * (an edited file, a quoted function, a list that restates a question).
 */
export class LookupDrafts implements DraftSource {
    public readonly name = "lookup";
    private readonly index: NgramIndex;

    public constructor(prompt: readonly Token[]) {
        this.index = new NgramIndex(runLength, prompt);
    }

    public propose(count: number): Token[] {
        const [latest] = this.index.occurrences(this.index.tokens);
        return latest == null ? [] : this.index.from(latest, count);
    }

    public observe(tokens: readonly Token[]): void {
        this.index.append(tokens);
    }
}
