/**
 * What a draft costs, in plain steps: `token` for each drafted token (one more row of the batch, and
 * its sampling), and `pass` for drafting at all (mostly the plain step after a drafted pass, slower
 * for running a graph of another shape). Measured by the decode loop (draftCostEstimate.ts): on the
 * bench model on 2 CPU cores a token is about 0.15–0.3 of a step and a pass next to nothing; on the
 * stories model, whose step is 0.65 ms, a token is 0.4–0.7 and a pass 0.2–0.4.
 */
export type DraftCost = {token: number, pass: number};

/**
 * How long a draft is worth, from how often a source's drafted tokens are accepted.
 *
 * A drafted token costs `cost.token` of a plain step, and it is only of use if every token before it
 * was accepted too: with acceptance rate p, the i-th token is used with probability p^i. It pays while
 * p^i > cost.token, so the draft is the longest i for which it does: none below p = cost.token, 1
 * token at p = 0.3, 5 at 0.7, 18 at 0.9 (a token at 0.15). The whole draft must then save more than
 * it costs, the pass included: p + p² + … + p^i > cost.pass + i·cost.token, or none is sent.
 */
export function draftLength(acceptance: number, cost: DraftCost, longest: number): number {
    if (acceptance <= cost.token)
        return 0;
    const length = acceptance >= 1 ? longest : Math.min(longest, Math.floor(Math.log(cost.token) / Math.log(acceptance)));
    return draftPays(acceptance, cost, length) ? length : 0;
}

/**
 * Whether a draft of `length` tokens is expected to save more steps than it costs, its pass included:
 * what draftLength asks of the length it picks, and of a guess that turns out shorter.
 */
export function draftPays(acceptance: number, cost: DraftCost, length: number): boolean {
    const saved = acceptance >= 1 ? length : acceptance * (1 - acceptance ** length) / (1 - acceptance);
    return length > 0 && saved > cost.pass + length * cost.token;
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
