import type {DraftCost} from "./draftLength.js";

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
 * What a draft costs on this context, measured in shares of a plain step's time (draftLength.ts's
 * DraftCost). A constant does not hold across models, machines or thread settings: a drafted row is
 * the compute of one more row (about 0.15–0.3 of a step for the bench model on 2 CPU cores), and on a
 * model whose step takes a millisecond its attention over the context alone is 0.4 of one (llama-bench
 * on the stories model at depth 300: 1 row 0.57 ms, 8 rows 2.39 ms); on a GPU a row is nearly free.
 * A drafted pass also has a cost of its own, paid after it: the plain step that follows runs a graph
 * of another shape than the last (llama.cpp reuses a graph only for the same shape), a quarter of a
 * step on the stories model and nothing to speak of on a larger one.
 *
 * So the decode loop times its own passes: a lone stream's plain steps; its drafted ones, whose time
 * over a plain step's, per drafted token, is the token's cost; and the plain step after a drafted
 * pass, whose time over a plain step's is the pass's. Until plain and drafted passes have been seen
 * a few times, the prior stands (and a pass costs nothing more). Each figure is bounded (a stall is
 * not a cost), and a measured cost ages back towards the prior once no drafted pass has been timed
 * for a few hundred steps: where it says drafts do not pay, none are timed to say otherwise, so after
 * a while a few are tried again. A token's cost set by the user (--draft-token-cost) is fixed, and a
 * pass then costs nothing more: drafts go by it on every machine alike.
 */
export class DraftCostEstimate {
    private readonly plainMs = new RunningAverage();
    /** How much longer than a plain step the plain step after a drafted pass takes (ms). */
    private readonly afterDraftMs = new RunningAverage();
    private readonly perToken = new RunningAverage();
    private plainSinceDrafted = 0;
    /** What the context's last pass was: a lone stream's plain step or drafted pass, or one not timed (a prompt's, several streams'). */
    private lastPass: "plain" | "drafted" | "untimed" = "untimed";

    /** `fixed`: the prior is a setting (--draft-token-cost), a drafted token's cost, and stands whatever is timed (a pass then costs nothing more). */
    public constructor(private readonly prior: number, private readonly fixed = false) {}

    /** The cost to draft by: measured once there is enough to go on, else the prior (and a pass at no cost of its own). */
    public get cost(): DraftCost {
        const plain = this.knownPlainMs;
        if (this.fixed || plain == null || this.perToken.count < draftedStepsNeeded)
            return {token: this.prior, pass: 0};
        const pass = this.afterDraftMs.count < draftedStepsNeeded ? 0 : Math.max(0, this.afterDraftMs.value ?? 0) / plain;
        return {token: Math.max(0.02, this.perToken.value ?? this.prior), pass};
    }

    /** A lone stream's pass of one token and `drafted` drafted ones, sampling and rollback included, took `ms`. */
    public observe(ms: number, drafted: number): void {
        const plain = this.plainMs.value;
        const known = this.knownPlainMs;
        const after = this.lastPass;
        this.lastPass = drafted > 0 ? "drafted" : "plain";
        // A plain step after an untimed pass runs another graph too, which is no one's cost to time.
        if (drafted === 0 && after === "untimed" && known != null)
            return;
        // A slower step after a drafted pass is the pass's, not a plain step's (once plain steps are
        // known: before, a stream drafting every other step would never know them). Each figure counts,
        // noise below zero too, so a pass that costs nothing averages to nothing.
        if (drafted === 0 && after === "drafted" && known != null)
            this.afterDraftMs.add(Math.min(ms, stallFactor * known) - known);
        else if (drafted === 0) {
            this.plainMs.add(known == null ? ms : Math.min(ms, stallFactor * known));
            if (++this.plainSinceDrafted > ageAfter) {
                this.perToken.pullTowards(this.prior, ageing);
                this.afterDraftMs.pullTowards(0, ageing);
            }
        } else if (plain != null && plain > 0) {
            this.perToken.add(Math.min(highestSample, Math.max(0, ms - plain) / drafted / plain));
            this.plainSinceDrafted = 0;
        }
    }

    /** A plain step's time, once enough have been timed to go by (a stall beyond it is clipped, a step after a pass is set apart). */
    private get knownPlainMs(): number | undefined {
        const plain = this.plainMs.value;
        return plain != null && plain > 0 && this.plainMs.count >= plainStepsNeeded ? plain : undefined;
    }

    /** The context ran a pass that is not timed (a prompt's, several streams', a split batch's). */
    public untimed(): void {
        this.lastPass = "untimed";
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
