/**
 * Applies stop sequences to streamed text that arrives in arbitrary pieces (tokens split words,
 * and a stop sequence can span several tokens).
 *
 * Text that could still be the start of a stop sequence is held back until it either completes one
 * (then it is dropped, with everything after it) or can no longer match (then it is released).
 * So no part of a stop sequence ever reaches the client, and nothing before it is cut short.
 */
export class StopMatcher {
    private readonly stops: readonly string[];
    private readonly longestStop: number;
    private held = "";
    private stopped = false;
    private matched: string | null = null;

    public constructor(stops: readonly string[]) {
        this.stops = stops.filter((stop) => stop !== "");
        this.longestStop = this.stops.reduce((longest, stop) => Math.max(longest, stop.length), 0);
    }

    /** Whether a stop sequence has been seen; all later input is ignored. */
    public get hasStopped(): boolean {
        return this.stopped;
    }

    /** The stop sequence that was seen, once one has been. */
    public get matchedStop(): string | null {
        return this.matched;
    }

    /** Feeds new text; returns the text that is now safe to emit. */
    public push(text: string): string {
        if (this.stopped)
            return "";

        const buffer = this.held + text;
        const stopAt = this.firstStopIndex(buffer);
        if (stopAt >= 0) {
            this.stopped = true;
            this.held = "";
            return buffer.slice(0, stopAt);
        }

        const keep = this.partialStopLength(buffer);
        this.held = buffer.slice(buffer.length - keep);
        return buffer.slice(0, buffer.length - keep);
    }

    /** At the end of generation, held-back text was not a stop sequence after all. */
    public flush(): string {
        const rest = this.stopped ? "" : this.held;
        this.held = "";
        return rest;
    }

    private firstStopIndex(buffer: string): number {
        let first = -1;
        for (const stop of this.stops) {
            const index = buffer.indexOf(stop);
            if (index >= 0 && (first < 0 || index < first)) {
                first = index;
                this.matched = stop;
            }
        }
        return first;
    }

    /** Length of the longest suffix of `buffer` that is a proper prefix of some stop sequence. */
    private partialStopLength(buffer: string): number {
        const maxLength = Math.min(buffer.length, this.longestStop - 1);
        for (let length = maxLength; length > 0; length--) {
            const suffix = buffer.slice(buffer.length - length);
            if (this.stops.some((stop) => stop.startsWith(suffix)))
                return length;
        }
        return 0;
    }
}
