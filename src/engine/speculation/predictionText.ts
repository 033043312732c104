import type {Token} from "node-llama-cpp";
import type {TokenText} from "./predictionDrafts.js";

/** Characters of the reply that must match to find the prediction again after an edit (a run of a few words). */
const findAgainBy = 16;
/** The reply's last characters kept: those before the match that agree with the prediction count as reproduced too. */
const recentLength = 256;

/**
 * A prediction's text and tokens, with where the reply has reached in it (a character offset; none
 * while the reply is elsewhere) and which of its characters the reply reproduced.
 */
export class PredictionText {
    private readonly tokens: Token[];
    /** Where each token's text begins and ends in the prediction, when its pieces spell the prediction exactly. */
    private readonly spans: {starts: number[], ends: number[]} | undefined;
    private readonly reproduced: Uint8Array;
    private cursor: number | undefined = 0;
    private lostAt = 0;
    private recent = "";

    public constructor(private readonly prediction: string, private readonly reader: TokenText) {
        this.tokens = reader.tokenize(prediction);
        this.spans = tokenSpans(this.tokens, prediction, reader);
        this.reproduced = new Uint8Array(prediction.length);
    }

    public get tokenCount(): number {
        return this.tokens.length;
    }

    /** Up to `count` tokens that spell the prediction on from where the reply is; none while it is lost. */
    public tokensFromCursor(count: number): Token[] {
        if (this.cursor == null || this.spans == null || count <= 0)
            return [];
        const {starts, ends} = this.spans;
        const next = ends.findIndex((end) => end > this.cursor!);
        if (next < 0)
            return [];
        if (starts[next] === this.cursor)
            return this.tokens.slice(next, next + count);
        // From the middle of a token: the rest of its text, tokenized alone, if that spells it back.
        const rest = this.prediction.slice(this.cursor, ends[next]);
        const restTokens = this.reader.tokenize(rest);
        if (this.reader.detokenize(restTokens, []) !== rest)
            return [];
        const after = ends.findIndex((end) => end > ends[next]!);
        return [...restTokens, ...(after < 0 ? [] : this.tokens.slice(after, after + count))].slice(0, count);
    }

    /** The reply went on by `text`: along the prediction, or away from it (then it is looked for again). */
    public follow(text: string): void {
        this.recent = (this.recent + text).slice(-recentLength);
        if (this.cursor != null) {
            // The reply's first text may begin with the space its first token carries.
            const from = this.cursor === 0 && !this.prediction.startsWith(text) ? text.trimStart() : text;
            const along = commonLength(this.prediction, this.cursor, from);
            this.reproduced.fill(1, this.cursor, this.cursor + along);
            this.cursor += along;
            if (along === from.length)
                return;
            this.lostAt = this.cursor;
            this.cursor = undefined;
        }
        this.findAgain();
    }

    /** How many of the prediction's tokens the reply reproduced whole. */
    public reproducedTokens(): number {
        if (this.spans == null) {
            // Pieces that do not spell the text (a tokenizer's own spacing): the share of characters reproduced.
            const share = this.reproduced.reduce((sum, value) => sum + value, 0) / Math.max(1, this.prediction.length);
            return Math.round(share * this.tokens.length);
        }
        const {starts, ends} = this.spans;
        return starts.filter((start, index) => ends[index]! > start && this.reproduced.subarray(start, ends[index]).every((value) => value === 1)).length;
    }

    private findAgain(): void {
        if (this.recent.length < findAgainBy)
            return;
        const anchor = this.recent.slice(-findAgainBy);
        let found = this.prediction.indexOf(anchor, this.lostAt);
        if (found < 0)
            found = this.prediction.lastIndexOf(anchor);
        if (found < 0)
            return;
        // The reply's text before the anchor, as far back as it agrees with the prediction's.
        let start = found;
        for (let back = this.recent.length - findAgainBy - 1; back >= 0 && start > 0 && this.recent[back] === this.prediction[start - 1]; back--)
            start--;
        this.reproduced.fill(1, start, found + findAgainBy);
        this.cursor = found + findAgainBy;
    }
}

/**
 * Where each token's text begins and ends, if the tokens' pieces (each read after the ones before)
 * spell `text` exactly. Tokens that spell one character between them (UTF-8 bytes) share its span,
 * and so does a token that spells nothing with the one after it.
 */
function tokenSpans(tokens: readonly Token[], text: string, reader: TokenText): {starts: number[], ends: number[]} | undefined {
    const starts: number[] = [];
    const ends: number[] = [];
    let end = 0;
    let group = 0;
    for (let index = 0; index < tokens.length; index++) {
        const piece = reader.detokenize(tokens.slice(group, index + 1), tokens.slice(Math.max(0, group - 4), group));
        // Half a character, or nothing visible yet: the group goes on to the next token.
        if ((piece === "" || piece.endsWith("\uFFFD")) && index + 1 < tokens.length)
            continue;
        if (!text.startsWith(piece, end))
            return undefined;
        for (let member = group; member <= index; member++) {
            starts.push(end);
            ends.push(end + piece.length);
        }
        end += piece.length;
        group = index + 1;
    }
    return end === text.length ? {starts, ends} : undefined;
}

/** How many characters of `text` the prediction has from `at` on. */
function commonLength(prediction: string, at: number, text: string): number {
    let length = 0;
    while (length < text.length && prediction[at + length] === text[length])
        length++;
    return length;
}
