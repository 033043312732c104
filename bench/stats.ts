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

/**
 * A distribution-free interval for the median (at least `confidence`, from the binomial
 * distribution of how many values fall below it): the k-th smallest and k-th largest value, k as
 * large as the confidence allows. NaN ends when there are too few values (fewer than 6 at 95 %).
 */
export function medianInterval(values: readonly number[], confidence = 0.95): {low: number, high: number} {
    const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
    const n = sorted.length;
    const tail = (1 - confidence) / 2;
    // P(X ≤ j) for X ~ Binomial(n, 1/2), summed up term by term.
    let term = 0.5 ** n;
    let below = term;
    let k = 0;
    for (let j = 0; j < n / 2 && below <= tail; j++) {
        k = j + 1;
        term = term * (n - j) / (j + 1);
        below += term;
    }
    return k === 0 ? {low: Number.NaN, high: Number.NaN} : {low: sorted[k - 1]!, high: sorted[n - k]!};
}
