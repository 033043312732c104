/**
 * How long a draft is worth, from how often a source's drafted tokens are accepted.
 *
 * A drafted token costs a share `cost` of a plain step (it is one more row of the batch), and it is
 * only of use if every token before it was accepted too: with acceptance rate p, the i-th token is
 * used with probability p^i. It pays while p^i > cost, so the draft is the longest i for which it
 * does: none below p = cost, 1 token at p = 0.3, 5 at 0.7, 18 at 0.9 (cost 0.15). `cost` is
 * measured, not guessed: on the bench model on 2 CPU cores a step of 1 + 7 drafted tokens takes
 * about 2.1 plain steps (docs/speculative-decoding.md); on a GPU it is far less.
 */
export function draftLength(acceptance: number, cost: number, longest: number): number {
    if (acceptance <= cost)
        return 0;
    if (acceptance >= 1)
        return longest;
    return Math.min(longest, Math.floor(Math.log(cost) / Math.log(acceptance)));
}

/**
 * A source's acceptance rate, as a running estimate that forgets (each observation counts for
 * `1 − decay` of the estimate): a prediction that was right for a page and then wrong for the rest
 * stops drafting within a few steps, and starts again once it is right again.
 */
export class AcceptanceRate {
    private accepted: number;
    private tried: number;

    /** `prior`: the rate believed before any observation, worth `weight` observed tokens. */
    public constructor(prior: number, weight: number, private readonly decay = 0.8) {
        this.accepted = prior * weight;
        this.tried = weight;
    }

    public get rate(): number {
        return this.accepted / this.tried;
    }

    /**
     * A draft's outcome: `accepted` tokens, then (when `rejectedOne`) one that was not; the tokens
     * after a rejected one were never tried.
     */
    public observe(accepted: number, rejectedOne: boolean): void {
        const tried = accepted + (rejectedOne ? 1 : 0);
        const keep = this.decay ** tried;
        this.accepted = this.accepted * keep + accepted;
        this.tried = this.tried * keep + tried;
    }
}
