import type {ApiError} from "../errors.js";

export type WaitLimits = {
    /** Any of these aborting ends the wait with its reason (shutdown's 503, a client gone). */
    signals: readonly AbortSignal[],
    /** When `onDeadline` is asked whether to give up (ms since the epoch). */
    deadline?: number,
    /** The error to give up with at the deadline; null: keep waiting (e.g. a load that got its memory and is reading weights). */
    onDeadline?: () => ApiError | null
};

/**
 * Waits for `work`, but not once a signal aborts, nor past the deadline if `onDeadline` then says
 * so. Whatever it gives up on goes on (a load another request shares, an unload under way).
 */
export async function boundedWait<T>(work: Promise<T>, {signals, deadline, onDeadline}: WaitLimits): Promise<T> {
    let onStop = () => {};
    let timer: NodeJS.Timeout | undefined;
    const stopped = new Promise<never>((_resolve, reject) => {
        onStop = () => reject(signals.find((signal) => signal.aborted)!.reason);
        for (const signal of signals) {
            if (signal.aborted)
                return onStop();
            signal.addEventListener("abort", onStop, {once: true});
        }
        if (deadline != null && onDeadline != null)
            timer = setTimeout(() => {
                const error = onDeadline();
                if (error != null)
                    reject(error);
            }, Math.max(0, deadline - Date.now()));
    });
    try {
        return await Promise.race([work, stopped]);
    } finally {
        for (const signal of signals)
            signal.removeEventListener("abort", onStop);
        clearTimeout(timer);
    }
}

export const stillRunning = Symbol("still running");

/** `work`'s value, or `stillRunning` once `ms` have passed (`work` goes on: what cannot be stopped is only no longer waited for). */
export async function withinMs<T>(work: Promise<T>, ms: number): Promise<T | typeof stillRunning> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<typeof stillRunning>((resolve) => timer = setTimeout(() => resolve(stillRunning), ms));
    try {
        return await Promise.race([work, timeout]);
    } finally {
        clearTimeout(timer);
    }
}
