/**
 * GBNF for the decimal integers in [low, high] (JSON's spelling: no leading zeros, no "-0"), so
 * `minimum` / `maximum` on an integer (zod's `.int().min(1)`, `.positive()`) hold in every reply,
 * as in llama.cpp's json-schema-to-grammar. Each length of number gets its own alternative, and
 * within a length the digits are bounded position by position.
 */
export function integerRangeGbnf(low: number, high: number): string {
    if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high) || low > high)
        throw new RangeError(`no integer range [${low}, ${high}]`);
    const parts: string[] = [];
    if (high >= 0)
        parts.push(naturals(Math.max(low, 0), high));
    if (low < 0)
        parts.push(sequence(literal("-"), naturals(Math.max(1, -high), -low)));
    return alternatives(parts);
}

/** a..b (0 ≤ a ≤ b) without leading zeros: one alternative per length of number. */
function naturals(a: number, b: number): string {
    const parts: string[] = [];
    for (let length = String(a).length; length <= String(b).length; length++) {
        const lowest = Math.max(a, length === 1 ? 0 : 10 ** (length - 1));
        const highest = Math.min(b, 10 ** length - 1);
        parts.push(sameLength(String(lowest), String(highest)));
    }
    return alternatives(parts);
}

/** Digit strings of one length from `x` to `y`: a shared prefix, then below, between and above the first digit that differs. */
function sameLength(x: string, y: string): string {
    if (x === y)
        return literal(x);
    let shared = 0;
    while (x[shared] === y[shared])
        shared++;
    const prefix = literal(x.slice(0, shared));
    const [first, last] = [Number(x[shared]), Number(y[shared])];
    if (shared === x.length - 1)
        return sequence(prefix, digits(first, last));
    const parts = [sequence(prefix, literal(String(first)), atLeast(x.slice(shared + 1)))];
    if (last - first >= 2)
        parts.push(sequence(prefix, digits(first + 1, last - 1), anyDigits(x.length - shared - 1)));
    parts.push(sequence(prefix, literal(String(last)), atMost(y.slice(shared + 1))));
    return alternatives(parts);
}

/** Digit strings as long as `bound` and not below it. */
function atLeast(bound: string): string {
    if (/^0*$/.test(bound))
        return anyDigits(bound.length);
    const digit = Number(bound[0]);
    const parts = [sequence(literal(String(digit)), atLeast(bound.slice(1)))];
    if (digit < 9)
        parts.push(sequence(digits(digit + 1, 9), anyDigits(bound.length - 1)));
    return alternatives(parts);
}

/** Digit strings as long as `bound` and not above it. */
function atMost(bound: string): string {
    if (/^9*$/.test(bound))
        return anyDigits(bound.length);
    const digit = Number(bound[0]);
    const parts = [sequence(literal(String(digit)), atMost(bound.slice(1)))];
    if (digit > 0)
        parts.push(sequence(digits(0, digit - 1), anyDigits(bound.length - 1)));
    return alternatives(parts);
}

function digits(from: number, to: number): string {
    return from === to ? literal(String(from)) : `[${from}-${to}]`;
}

function anyDigits(count: number): string {
    return count === 0 ? "" : count === 1 ? "[0-9]" : `[0-9]{${count}}`;
}

function literal(text: string): string {
    return text === "" ? "" : `"${text}"`;
}

function sequence(...parts: string[]): string {
    return parts.filter((part) => part !== "").join(" ");
}

function alternatives(parts: readonly string[]): string {
    return parts.length === 1 ? parts[0]! : `(${parts.join(" | ")})`;
}
