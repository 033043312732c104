import {z} from "zod";

/**
 * How long a model stays loaded once idle, and how it is written. chatserve's own default, keeping
 * a model until its memory is needed, is not a keep-alive: it is the absence of one (null).
 */
export type KeepAlive =
    /** Unloaded this many milliseconds after its last request ends; 0: as soon as it ends. */
    | {ms: number}
    /** Never unloaded, not even to make room for another model (only /unload, a changed file or shutdown end it). */
    | "forever";

/**
 * One spelling everywhere a keep-alive is written (--keep-alive, chatserve.json's `keep_alive`, a
 * request's `keep_alive`): Ollama's (its `keep_alive` field and `OLLAMA_KEEP_ALIVE`), so that
 * what works there works here. A number of seconds (`300`, `0.5`), or a Go duration (`"5m"`,
 * `"1h30m"`, `"30s"`, `"250ms"`), or a number of seconds as a string (`"300"`, `"-1"`); anything
 * negative means for ever.
 */

/** Go's `time.ParseDuration` units, which Ollama's keep_alive strings use. */
const unitMs: Record<string, number> = {ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000};
const goDuration = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const durationPart = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
/** Beyond this a timer cannot wait (setTimeout's 32-bit limit, about 24.8 days): longer is for ever. */
const longestTimerMs = 2 ** 31 - 1;

/** A number of seconds or a duration string → the keep-alive; throws with the reason for anything else. */
export function parseKeepAlive(value: string | number): KeepAlive {
    if (typeof value === "number") {
        if (!Number.isFinite(value))
            throw new Error("a keep-alive must be a finite number of seconds");
        return fromMs(value * 1000);
    }
    const text = value.trim();
    if (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text))
        return fromMs(Number(text) * 1000);
    if (!goDuration.test(text))
        throw new Error(`'${value}' is not a duration (e.g. 30s, 5m, 1h30m, 0 to unload after each request, -1 for never)`);
    let ms = 0;
    for (const [, amount, unit] of text.matchAll(durationPart))
        ms += Number(amount) * unitMs[unit!]!;
    return fromMs(text.startsWith("-") ? -ms : ms);
}

function fromMs(ms: number): KeepAlive {
    if (ms < 0 || ms > longestTimerMs)
        return "forever";
    return {ms: Math.round(ms)};
}

/**
 * A `keep_alive` value in a JSON document (chatserve.json's, and every request's through
 * api/keepAlive.ts), read into a keep-alive; a value that is none becomes a validation issue
 * saying how to write one.
 */
export const keepAliveValue = z.union([z.number(), z.string()], {error: "keep_alive must be a number of seconds or a duration such as \"5m\""})
    .transform((value, context) => {
        try {
            return parseKeepAlive(value);
        } catch (error) {
            context.addIssue({code: "custom", message: (error as Error).message});
            return z.NEVER;
        }
    });
