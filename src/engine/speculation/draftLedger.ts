import type {Token} from "node-llama-cpp";

/** The ledger's belief before anything is judged: drafting pays (the sources' priors say when; the ledger only vetoes). */
const prior = 0.5;
/** Each judged draft's weight in the running average: about the last 20 count. */
const weight = 0.05;
/** Guesses still being judged at once, at most (one opens a step; a sent or wrong one closes at once). */
const mostOpen = 32;

/**
 * Whether a source's drafts actually pay: the steps they saved, net of what they cost, averaged over
 * every draft its acceptance rate called for, sent or not. An acceptance rate that follows the last
 * few guesses is highest just after a lucky run, which is when it calls for a draft; where guesses
 * come true about as often as a drafted token costs (sampled text on a model whose step is a
 * millisecond), the drafts it sends are accepted less often than it believed, and every one is a loss.
 * The ledger judges the rule rather than the guesses: each draft the rate calls for is followed over
 * the tokens that come next, as if sent (verification samples each position as plain decoding would,
 * so a draft not sent would have fared as one sent), and credited with the tokens it would have had
 * accepted less its cost. While the average is not above zero, the source's drafts are held back; it
 * goes on being judged, so drafts resume once they would pay again.
 */
export class DraftLedger {
    private average = prior;
    private readonly open: Array<{tokens: readonly Token[], matched: number, cost: number}> = [];

    /** Whether the source's drafts have been paying lately. */
    public get pays(): boolean {
        return this.average > 0;
    }

    /** A draft the source's rate called for, whose `cost` (in steps) sending it would have been: judged over the tokens that come next. */
    public judge(tokens: readonly Token[], cost: number): void {
        if (this.open.length >= mostOpen)
            this.open.shift();
        this.open.push({tokens, matched: 0, cost});
    }

    /** The reply grew by `kept`: each open draft is taken as far as it matches, and a draft that ends or fails is credited. */
    public follow(kept: readonly Token[]): void {
        let index = 0;
        while (index < this.open.length) {
            const draft = this.open[index]!;
            let at = 0;
            while (at < kept.length && draft.matched < draft.tokens.length && kept[at] === draft.tokens[draft.matched]) {
                at++;
                draft.matched++;
            }
            if (draft.matched < draft.tokens.length && at === kept.length)
                index++;
            else {
                this.open.splice(index, 1);
                this.average += weight * (draft.matched - draft.cost - this.average);
            }
        }
    }
}
