/** Plain steps and drafted steps to see before the measurement replaces the prior. */
const plainStepsNeeded = 8;
const draftedStepsNeeded = 4;
/** Each new pass's weight in the running averages: recent passes count most (depth, load and model change). */
const weight = 0.1;

/**
 * What a drafted token costs on this context, measured: its share of a plain step's time (draftLength.ts's
 * `cost`). A constant does not hold across models: on the bench model (12–15 ms a step on 2 cores) a
 * drafted row costs about 0.15 of a step, the compute of one more row; on a 260K-parameter model
 * decoding in 1 ms it cost about 0.6, since there what a drafted token adds is not compute but a
 * sampling call and the rollback of rejected cells, the same whatever the model's size; on a GPU a
 * row is nearly free. So the decode loop times its own passes: a lone stream's plain steps, and its
 * drafted ones, whose time over a plain step's, per drafted token, is the cost. Until both have been
 * seen a few times, the prior (measured for the bench model) stands. A cost set by the user
 * (--draft-token-cost) is fixed: drafts then go by it on every machine alike.
 */
export class DraftCostEstimate {
    private plainMs: number | undefined;
    private extraMs: number | undefined;
    private plainSteps = 0;
    private draftedSteps = 0;

    /** `fixed`: the prior is a setting (--draft-token-cost) and stands whatever is timed. */
    public constructor(private readonly prior: number, private readonly fixed = false) {}

    /** The cost to draft by: measured once there is enough to go on, else the prior. */
    public get cost(): number {
        if (this.fixed || this.plainMs == null || this.extraMs == null || this.plainSteps < plainStepsNeeded || this.draftedSteps < draftedStepsNeeded)
            return this.prior;
        return Math.min(2, Math.max(0.02, this.extraMs / this.plainMs));
    }

    /** A lone stream's pass of one token and `drafted` drafted ones, sampling and rollback included, took `ms`. */
    public observe(ms: number, drafted: number): void {
        if (drafted === 0) {
            this.plainMs = average(this.plainMs, ms);
            this.plainSteps++;
        } else if (this.plainMs != null) {
            this.extraMs = average(this.extraMs, Math.max(0, ms - this.plainMs) / drafted);
            this.draftedSteps++;
        }
    }
}

function average(current: number | undefined, value: number): number {
    return current == null ? value : current + weight * (value - current);
}
