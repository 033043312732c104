/** Small statistics over a handful of runs: medians with their range, percentiles, ratios. */

export type Summary = {median: number, min: number, max: number, n: number};

export function median(values: readonly number[]): number {
    return percentile(values, 50);
}

/** Linear interpolation between the closest ranks (p in 0..100); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
    const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
    if (sorted.length === 0)
        return Number.NaN;
    const rank = (p / 100) * (sorted.length - 1);
    const low = Math.floor(rank);
    const high = Math.ceil(rank);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

export function summarize(values: readonly number[]): Summary {
    const finite = values.filter((value) => Number.isFinite(value));
    return {
        median: median(finite),
        min: finite.length === 0 ? Number.NaN : Math.min(...finite),
        max: finite.length === 0 ? Number.NaN : Math.max(...finite),
        n: finite.length
    };
}

/** a ÷ b, NaN when either is missing or b is 0. */
export function ratio(a: number, b: number): number {
    return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : Number.NaN;
}

/** Tokens per second from a count and a span in milliseconds. */
export function perSecond(tokens: number, spanMs: number): number {
    return spanMs > 0 ? tokens / (spanMs / 1000) : Number.NaN;
}
