import {formatBytes} from "../models/byteSize.js";

export type ProgressState = {downloadedBytes: number, totalBytes: number};

/** Speed is measured over this much recent time: steady enough to read, quick to follow a change. */
const speedWindowMs = 5000;
/** A terminal's line is redrawn at most this often. */
const redrawMs = 200;

/**
 * A download's progress for a person: on a terminal, one line redrawn in place with a bar, the
 * speed and the time left; elsewhere (a log, CI, a pipe) a plain line at every tenth of the way.
 */
export class PullProgress {
    private readonly samples: Array<{at: number, bytes: number}> = [];
    private lastDraw = Number.NEGATIVE_INFINITY;
    private lastTenth = -1;
    private drawn = false;

    public constructor(
        private readonly out: {write(text: string): unknown, isTTY?: boolean, columns?: number},
        private readonly now: () => number = Date.now
    ) {}

    public update(state: ProgressState): void {
        const at = this.now();
        this.samples.push({at, bytes: state.downloadedBytes});
        while (this.samples.length > 2 && at - this.samples[0]!.at > speedWindowMs)
            this.samples.shift();

        if (this.out.isTTY === true) {
            if (at - this.lastDraw < redrawMs && state.downloadedBytes < state.totalBytes)
                return;
            this.lastDraw = at;
            this.drawn = true;
            this.out.write(`\r${progressBar(state, this.bytesPerSecond(), this.out.columns || 80)}\x1b[K`);
            return;
        }
        const tenth = state.totalBytes > 0 ? Math.floor(state.downloadedBytes / state.totalBytes * 10) : 0;
        if (tenth > this.lastTenth) {
            this.lastTenth = tenth;
            this.out.write(`${progressText(state, this.bytesPerSecond())}\n`);
        }
    }

    /** Ends the redrawn line, so that what is written next starts on its own. */
    public end(): void {
        if (this.drawn)
            this.out.write("\n");
        this.drawn = false;
    }

    /** Bytes per second over the recent window; 0 until two samples are apart in time. */
    private bytesPerSecond(): number {
        const first = this.samples[0];
        const last = this.samples.at(-1);
        if (first == null || last == null || last.at <= first.at)
            return 0;
        return (last.bytes - first.bytes) / ((last.at - first.at) / 1000);
    }
}

/** "42%  1.1 GiB of 2.6 GiB  31 MiB/s  49 s left" */
export function progressText({downloadedBytes, totalBytes}: ProgressState, bytesPerSecond: number): string {
    const percent = totalBytes > 0 ? Math.floor(downloadedBytes / totalBytes * 100) : 0;
    const parts = [`${String(percent).padStart(3)}%`, `${formatBytes(downloadedBytes)} of ${formatBytes(totalBytes)}`];
    if (downloadedBytes < totalBytes && bytesPerSecond > 0)
        parts.push(`${formatBytes(bytesPerSecond)}/s`, `${formatDuration((totalBytes - downloadedBytes) / bytesPerSecond)} left`);
    return parts.join("  ");
}

/** "[==========>         ]  42%  1.1 GiB of 2.6 GiB  31 MiB/s  49 s left", fitted to the terminal's width. */
export function progressBar(state: ProgressState, bytesPerSecond: number, columns: number): string {
    const text = progressText(state, bytesPerSecond);
    const width = Math.min(40, columns - text.length - 4);
    if (width < 10)
        return text.slice(0, Math.max(0, columns - 1));
    const filled = state.totalBytes > 0 ? Math.min(width, Math.floor(state.downloadedBytes / state.totalBytes * width)) : 0;
    const bar = filled >= width ? "=".repeat(width) : `${"=".repeat(filled)}>${" ".repeat(width - filled - 1)}`;
    return `[${bar}] ${text}`;
}

/** "2 h 5 min", "3 min 20 s", "45 s" */
export function formatDuration(seconds: number): string {
    const total = Math.max(1, Math.round(seconds));
    if (total >= 3600)
        return `${Math.floor(total / 3600)} h ${Math.floor(total % 3600 / 60)} min`;
    if (total >= 60)
        return `${Math.floor(total / 60)} min ${total % 60} s`;
    return `${total} s`;
}
