/** Plain steps and drafted steps to see before the measurement replaces the prior. */
const plainStepsNeeded = 8;
const draftedStepsNeeded = 4;
/** The running averages' weight for a new pass once they have seen 1/weight passes: recent passes count most (depth, load and model change). */
const weight = 0.1;
/** The most one drafted pass may say a token costs, in plain steps: a pass that stalled (a GC pause, another process) says nothing of drafting. */
const highestSample = 2;
/** A plain step longer than this many times the average is a stall, counted as this long. */
const stallFactor = 3;
/**
 * Once this many plain steps have gone by without a drafted one, each further one pulls a measured
 * cost back towards the prior by `ageing`: a cost measured too high stops drafts, and with them its
 * own correction. Only then: pulled while drafts are being timed, the figure would sit between the
 * two, too low where drafts are rare.
 */
const ageAfter = 256;
const ageing = 0.002;

/**
 * What a drafted token costs on this context, measured: its share of a plain step's time (draftLength.ts's
 * `cost`). A constant does not hold across models, machines or thread settings: a drafted row is the
 * compute of one more row (about 0.15–0.2 of a step for the bench model on 2 cores), plus a sampling
 * call into the addon and the rollback of rejected cells, fixed work that a model whose step takes a
 * millisecond does not dwarf; a pass of several rows can also run on more threads than a one-token
 * step (threads.ts), which for a tiny model costs more than it saves; on a GPU a row is nearly free.
 * So the decode loop times its own passes: a lone stream's plain steps, and its drafted ones, whose
 * time over a plain step's, per drafted token, is the cost. Until both have been seen a few times,
 * the prior stands. Each pass's figure is bounded (a stall is not a cost), and a measured cost ages
 * back towards the prior once no drafted pass has been timed for a few hundred steps: where it says
 * drafts do not pay, none are timed to say otherwise, so after a while a few are tried again. A cost set by the user
 * (--draft-token-cost) is fixed: drafts then go by it on every machine alike.
 */
export class DraftCostEstimate {
    private readonly plainMs = new RunningAverage();
    private readonly perToken = new RunningAverage();
    private plainSinceDrafted = 0;

    /** `fixed`: the prior is a setting (--draft-token-cost) and stands whatever is timed. */
    public constructor(private readonly prior: number, private readonly fixed = false) {}

    /** The cost to draft by: measured once there is enough to go on, else the prior. */
    public get cost(): number {
        if (this.fixed || this.plainMs.count < plainStepsNeeded || this.perToken.count < draftedStepsNeeded)
            return this.prior;
        return Math.max(0.02, this.perToken.value ?? this.prior);
    }

    /** A lone stream's pass of one token and `drafted` drafted ones, sampling and rollback included, took `ms`. */
    public observe(ms: number, drafted: number): void {
        const plain = this.plainMs.value;
        if (drafted === 0) {
            this.plainMs.add(plain != null && this.plainMs.count >= plainStepsNeeded ? Math.min(ms, stallFactor * plain) : ms);
            if (++this.plainSinceDrafted > ageAfter)
                this.perToken.pullTowards(this.prior, ageing);
        } else if (plain != null) {
            this.perToken.add(Math.min(highestSample, Math.max(0, ms - plain) / drafted / plain));
            this.plainSinceDrafted = 0;
        }
    }
}

/**
 * A mean of everything seen while there is little (a first odd figure weighs no more than the
 * others), then an exponential average that favours the recent.
 */
class RunningAverage {
    public count = 0;
    public value: number | undefined;

    public add(sample: number): void {
        this.count++;
        this.value = this.value == null ? sample : this.value + Math.max(weight, 1 / this.count) * (sample - this.value);
    }

    public pullTowards(target: number, share: number): void {
        if (this.value != null)
            this.value += share * (target - this.value);
    }
}
