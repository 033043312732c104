/**
 * How many threads a one-token step (a single stream generating) runs with: the default decode
 * threads, or one, whichever decodes faster here and now, measured as the server runs.
 *
 * Why: llama.cpp's compute threads meet at a barrier after every operation of a token and spin
 * there. On a quiet machine, and for any model with real work per token, more threads decode
 * faster (the bench model on 2 cores: 47.5 tok/s with 2 against 28.8 with 1, under a load average
 * of ~3). But where other processes hold the cores (an agent's own CLI, its builds and tests) a
 * preempted thread stalls every barrier of its peer, and with little work per token the waits are
 * all there is: the tiny Qwen2.5 at a ~13k-token depth on the busy 2-core machine decoded at 12–23
 * tok/s with 2 threads and 147–180 with 1, llama-server with 2 at 13–70 (HTTP, six rounds in turn).
 * Neither count is right everywhere, and which one is changes with the machine's load.
 *
 * So the steps run with the preferred count (at first the default), and now and then a few run
 * with the other (the first of them not counted); when those were faster by `margin`, it becomes
 * the preferred one. A probe that confirms the choice doubles the wait for the next (up to
 * `maxInterval` steps), and a probe step more than twice as slow as the preferred ends the probe at
 * once (2 threads on the busy machine took 81–216 ms a step against 3–13 with 1), so a count that
 * is far slower costs two steps in a thousand; a switch brings the next probe back soon. A step is
 * timed from its decode to its stream's next step (DecodeSteps), sampling and JavaScript included.
 */
export type DecodeThreadSettings = {
    /** Steps between probes right after a switch (and at first); doubled after each confirmation. */
    minInterval: number,
    maxInterval: number,
    /** Steps a probe runs with the other count; its median is compared. */
    probeSteps: number,
    /** Recent steps of the preferred count whose median a probe is compared against. */
    window: number,
    /** How much faster the other count must be to take over (0.1: 10 % less time a step). */
    margin: number,
    /** A probe step this many times slower than the preferred count's median ends the probe at once. */
    giveUpAfter: number
};

export const decodeThreadDefaults: DecodeThreadSettings = {minInterval: 32, maxInterval: 1024, probeSteps: 4, window: 16, margin: 0.1, giveUpAfter: 2};

export class DecodeThreadChoice {
    private preferred: number;
    private interval: number;
    private stepsUntilProbe: number;
    private probeLeft = 0;
    /** The last `window` step times with the preferred count, and the running probe's. */
    private preferredTimes: number[] = [];
    private probe: number[] = [];
    private warmingUp = false;

    /** `counts`: the default decode threads, and 1; a single count (or a user's `--decode-threads`) is never changed. */
    public constructor(private readonly counts: readonly number[], private readonly settings: DecodeThreadSettings = decodeThreadDefaults) {
        this.preferred = counts[0]!;
        this.interval = settings.minInterval;
        this.stepsUntilProbe = settings.minInterval;
    }

    /** A fixed count: what `--decode-threads` asks for. */
    public static fixed(threads: number): DecodeThreadChoice {
        return new DecodeThreadChoice([threads]);
    }

    /** The default decode threads, with one thread measured against them when they are more than one. */
    public static measured(threads: number): DecodeThreadChoice {
        return new DecodeThreadChoice(threads > 1 ? [threads, 1] : [threads]);
    }

    /** Threads for the next one-token step; report its time with `record`. */
    public next(): number {
        if (this.counts.length < 2)
            return this.preferred;
        if (this.probeLeft === 0 && this.stepsUntilProbe <= 0) {
            this.probeLeft = this.settings.probeSteps;
            this.probe = [];
            this.warmingUp = true;
        }
        return this.probeLeft > 0 ? this.other() : this.preferred;
    }

    /** How long a one-token step with `threads` took, in ms: from its decode to its stream's next step. */
    public record(threads: number, ms: number): void {
        if (this.counts.length < 2)
            return;
        if (threads === this.preferred) {
            this.preferredTimes.push(ms);
            this.preferredTimes.splice(0, Math.max(0, this.preferredTimes.length - this.settings.window));
            this.stepsUntilProbe--;
            return;
        }
        // Else a probe's step (one that ended after its probe did is left out). Its first is not
        // counted: a thread that has slept since the last probe must first wake up (up to 134 ms
        // on the busy machine, against 1.7 for the steps after it).
        if (this.probeLeft === 0)
            return;
        if (this.warmingUp) {
            this.warmingUp = false;
            return;
        }
        this.probeLeft--;
        this.probe.push(ms);
        const hopeless = this.preferredTimes.length > 0 && ms > median(this.preferredTimes) * this.settings.giveUpAfter;
        if (this.probeLeft === 0 || hopeless) {
            this.probeLeft = 0;
            this.decide();
        }
    }

    /** The count steps run with between probes (for logs and tests). */
    public get current(): number {
        return this.preferred;
    }

    private decide(): void {
        if (this.preferredTimes.length > 0 && median(this.probe) < median(this.preferredTimes) * (1 - this.settings.margin)) {
            this.preferred = this.other();
            // The new count's times so far are the probe's.
            this.preferredTimes = this.probe;
            this.interval = this.settings.minInterval;
        } else
            this.interval = Math.min(this.interval * 2, this.settings.maxInterval);
        this.stepsUntilProbe = this.interval;
    }

    private other(): number {
        return this.counts.find((count) => count !== this.preferred)!;
    }
}

function median(values: readonly number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
