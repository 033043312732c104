import {integerRangeGbnf} from "./integerRange.js";

// What a JSON number may be in a reply's grammar: finite always (withFiniteNumbers), and within a
// schema's bounds where it has them (numberRangeGbnf).

/** One end of a number's range: a whole number (see schemaBounds.ts), and whether it is allowed itself. */
export type NumberBound = {value: number, inclusive: boolean};

/**
 * At most 6 decimals: with an integer part of up to 9 digits (schemaBounds.ts keeps exclusive
 * bounds within ±10^9) a number keeps 15 significant digits, so it parses to a double on the right
 * side of its bound (8.9999999999999999 would parse to 9, past `exclusiveMaximum: 9`).
 */
const anyFraction = "(\".\" [0-9]{1,6})?";
const zeroFraction = "(\".\" \"0\"{1,6})?";
const nonzeroFraction = "\".\" \"0\"{0,5} [1-9] [0-9]{0,5}";

/**
 * node-llama-cpp's number rules allow 16-digit exponents ("1e4444444444444444"), which every JSON
 * parser reads as Infinity: not an integer, and not what any schema meant. These keep numbers
 * finite, and integers within ±(2^53 − 1), which JavaScript clients read exactly (zod's `.int()`
 * refuses the rest).
 */
const numberRules: Array<[RegExp, string]> = [
    [/^integer-number-rule ::= .*$/m, `integer-number-rule ::= ${integerRangeGbnf(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)}`],
    [/^fractional-number-rule ::= .*$/m, "fractional-number-rule ::= \"-\"? (\"0\" | [1-9] [0-9]{0,15}) (\".\" [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})?"]
];

/** `grammar` (node-llama-cpp's GBNF for a JSON schema) with its number rules swapped for finite ones. */
export function withFiniteNumbers(grammar: string): string {
    return numberRules.reduce((text, [rule, replacement]) => text.replace(rule, replacement), grammar);
}

/**
 * GBNF for the JSON numbers between `low` and `high` (either may be absent), so `minimum` /
 * `maximum` / `exclusiveMinimum` / `exclusiveMaximum` on a `number` (zod's `.min(0).max(1)`,
 * `.positive()`) hold in every reply. Numbers are written plainly: no exponent, at most 6 decimals. With whole-number
 * bounds the integer part decides everything except at a bound itself, where the fraction does:
 * any at an inclusive lower bound, none but zeros at an inclusive upper one, a nonzero one just
 * above an exclusive lower bound. Negative numbers are a minus sign and a magnitude above zero.
 */
export function numberRangeGbnf(low: NumberBound | undefined, high: NumberBound | undefined): string {
    const parts: string[] = [];
    const nonNegativeLow = low == null || low.value < 0 ? {value: 0, inclusive: true} : low;
    if (high == null || high.value > 0 || (high.value === 0 && high.inclusive)) {
        const positive = magnitude(nonNegativeLow, high);
        if (positive != null)
            parts.push(positive);
    }
    if (low == null || low.value < 0) {
        const aboveZero = high == null || high.value >= 0 ? {value: 0, inclusive: false} : {value: -high.value, inclusive: high.inclusive};
        const negative = magnitude(aboveZero, low == null ? undefined : {value: -low.value, inclusive: low.inclusive});
        if (negative != null)
            parts.push(`"-" ${negative}`);
    }
    if (parts.length === 0)
        throw new RangeError("no number lies in this range");
    return parts.length === 1 ? parts[0]! : `(${parts.join(" | ")})`;
}

/** Magnitudes (integer part and fraction, no sign) from `low` (≥ 0) to `high` (none: up to 2^53 − 1). */
function magnitude(low: NumberBound, high: NumberBound | undefined): string | null {
    const parts: string[] = [];
    const top = high?.value ?? Number.MAX_SAFE_INTEGER + 1;
    // Integer parts strictly inside the range: any fraction.
    if (low.value + 1 <= top - 1)
        parts.push(`${integerRangeGbnf(low.value + 1, Math.min(top - 1, Number.MAX_SAFE_INTEGER))} ${anyFraction}`);
    if (low.value < top)
        parts.push(`"${low.value}" ${low.inclusive ? anyFraction : nonzeroFraction}`);
    else if (low.inclusive && high!.inclusive)
        parts.push(`"${low.value}" ${zeroFraction}`);
    if (high != null && high.value > low.value && high.inclusive)
        parts.push(`"${high.value}" ${zeroFraction}`);
    return parts.length === 0 ? null : parts.length === 1 ? parts[0]! : `(${parts.join(" | ")})`;
}
