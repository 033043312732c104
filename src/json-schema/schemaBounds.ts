import type {JsonSchema} from "../engine/generationOptions.js";
import {maxGrammarRepetition} from "../engine/reply/patternParser.js";
import {PatternError, patternToGbnf} from "../engine/reply/patternGrammar.js";
import {invalid, unsupported, type SchemaObject} from "./schemaErrors.js";
import type {SchemaStrictness} from "./schemaStrictness.js";

/**
 * The bounds in a client's schema that the grammar enforces, checked and normalised for
 * constrainedSchema.ts: counts and lengths (as repetitions), integer ranges, string patterns.
 * What they cannot enforce goes to `strictness` (schemaStrictness.ts): a 400 when strict, otherwise
 * a looser bound the grammar can enforce, or none.
 */

export const numericBounds = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

/**
 * A string matching `pattern`, which the grammar enforces (engine/reply/patternGrammar.ts); its
 * `format`, if any, is left to the pattern (zod writes both). A length bound next to it cannot be
 * enforced, since a grammar cannot intersect the two (leniently, the pattern alone). Leniently, null
 * for a pattern the grammar cannot follow (look-arounds, back-references).
 */
export function patternString(schema: SchemaObject, path: string, description: {description?: string}, strictness: SchemaStrictness): JsonSchema | null {
    if (typeof schema.pattern !== "string")
        throw invalid(`${path}.pattern`, "'pattern' must be a string");
    try {
        patternToGbnf(schema.pattern);
    } catch (error) {
        if (!(error instanceof PatternError))
            throw error;
        strictness.refuse(unsupported(path, "pattern", `the pattern cannot be enforced by constrained decoding: ${error.message}`));
        return null;
    }
    for (const bound of ["minLength", "maxLength"].filter((keyword) => keyword in schema))
        strictness.refuse(unsupported(path, bound, `'${bound}' next to 'pattern' cannot be enforced by constrained decoding; express the length in the pattern`));
    return {type: "string", pattern: schema.pattern, ...description} as JsonSchema;
}

/**
 * An integer's bounds as inclusive integers, which the grammar enforces (engine/reply/integerRange.ts):
 * `exclusiveMinimum` as a number (draft 6 on) or a flag on `minimum` (draft 4), fractions rounded inwards.
 */
export function integerBounds(schema: SchemaObject, path: string): {minimum?: number, maximum?: number} {
    for (const keyword of numericBounds)
        if (schema[keyword] !== undefined && typeof schema[keyword] !== "boolean" && !Number.isFinite(schema[keyword]))
            throw invalid(`${path}.${keyword}`, `'${keyword}' must be a number`);
    const {minimum, maximum, exclusiveMinimum, exclusiveMaximum} = schema as Record<string, number | boolean | undefined>;
    const lows = [
        typeof minimum === "number" ? (exclusiveMinimum === true ? Math.floor(minimum) + 1 : Math.ceil(minimum)) : null,
        typeof exclusiveMinimum === "number" ? Math.floor(exclusiveMinimum) + 1 : null
    ].filter((bound) => bound != null);
    const highs = [
        typeof maximum === "number" ? (exclusiveMaximum === true ? Math.ceil(maximum) - 1 : Math.floor(maximum)) : null,
        typeof exclusiveMaximum === "number" ? Math.ceil(exclusiveMaximum) - 1 : null
    ].filter((bound) => bound != null);
    const low = lows.length === 0 ? undefined : Math.max(...lows, -Number.MAX_SAFE_INTEGER);
    const high = highs.length === 0 ? undefined : Math.min(...highs, Number.MAX_SAFE_INTEGER);
    if ((low ?? -Infinity) > (high ?? Infinity) || (low ?? 0) > Number.MAX_SAFE_INTEGER || (high ?? 0) < -Number.MAX_SAFE_INTEGER)
        throw invalid(path, "its bounds leave no integer a JavaScript client can read exactly");
    return {...(low === undefined ? {} : {minimum: low}), ...(high === undefined ? {} : {maximum: high})};
}

/**
 * A number's bounds, which the grammar enforces (engine/reply/numberRange.ts) when they are whole
 * numbers, the kind clients write (zod's `.min(0).max(1)`, `.positive()`); a fractional bound
 * (`.max(0.5)`) cannot be enforced (leniently, it is rounded outwards: at most 1). `exclusiveMinimum` as a number (draft 6 on) or a flag on `minimum`
 * (draft 4); of two lower or two upper bounds the tighter counts. Written back in draft 2020's
 * form: `minimum` or `exclusiveMinimum`, `maximum` or `exclusiveMaximum`, each a number.
 */
export function numberBounds(schema: SchemaObject, path: string, strictness: SchemaStrictness): Record<string, number> {
    const bound = (keyword: string) => {
        const value = schema[keyword];
        if (value === undefined || typeof value === "boolean")
            return undefined;
        if (typeof value !== "number" || !Number.isFinite(value))
            throw invalid(`${path}.${keyword}`, `'${keyword}' must be a number`);
        if (Number.isSafeInteger(value))
            return value;
        strictness.refuse(unsupported(path, keyword, `'${keyword}' on a number can be enforced by constrained decoding when it is a whole number within ±(2^53 − 1), not ${value}`));
        const outwards = keyword.endsWith("inimum") ? Math.floor(value) : Math.ceil(value);
        return Number.isSafeInteger(outwards) ? outwards : undefined;
    };
    const [minimum, maximum, exclusiveMinimum, exclusiveMaximum] = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].map(bound);
    const low = tighter([
        minimum == null ? null : {value: minimum, inclusive: schema.exclusiveMinimum !== true},
        exclusiveMinimum == null ? null : {value: exclusiveMinimum, inclusive: false}
    ], 1);
    const high = tighter([
        maximum == null ? null : {value: maximum, inclusive: schema.exclusiveMaximum !== true},
        exclusiveMaximum == null ? null : {value: exclusiveMaximum, inclusive: false}
    ], -1);
    // Beyond this a number just inside an exclusive bound (up to 6 decimals) could parse onto it.
    for (const [side, keyword] of [[low, "exclusiveMinimum"], [high, "exclusiveMaximum"]] as const)
        if (side != null && !side.inclusive && Math.abs(side.value) > 1e9) {
            strictness.refuse(unsupported(path, keyword, `an exclusive bound on a number can be enforced by constrained decoding within ±10^9, not ${side.value}`));
            // Leniently, inclusive: the bound itself let through.
            side.inclusive = true;
        }
    if (low != null && high != null && (low.value > high.value || (low.value === high.value && !(low.inclusive && high.inclusive))))
        throw invalid(path, "its bounds leave no number");
    return {
        ...(low == null ? {} : {[low.inclusive ? "minimum" : "exclusiveMinimum"]: low.value}),
        ...(high == null ? {} : {[high.inclusive ? "maximum" : "exclusiveMaximum"]: high.value})
    };
}

/** Of bounds on one side, the tighter: further in `direction` (1 for lower bounds), exclusive on a tie. */
function tighter(bounds: Array<{value: number, inclusive: boolean} | null>, direction: 1 | -1) {
    return bounds.filter((bound) => bound != null).reduce<{value: number, inclusive: boolean} | null>((best, bound) =>
        best == null || (bound.value - best.value) * direction > 0 || (bound.value === best.value && !bound.inclusive) ? bound : best, null);
}

/**
 * A count or length the grammar repeats up to. Leniently, one above the grammar's limit goes: a
 * smaller maximum would refuse values the client allows (an agent's 100,000-character file write).
 */
export function numberKeyword(schema: SchemaObject, keyword: string, path: string, strictness: SchemaStrictness): Record<string, number> {
    const value = schema[keyword];
    if (value === undefined)
        return {};
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
        throw invalid(`${path}.${keyword}`, `'${keyword}' must be a non-negative integer`);
    if (value <= maxGrammarRepetition)
        return {[keyword]: value};
    strictness.refuse(unsupported(path, keyword, `constrained decoding enforces '${keyword}' only up to ${maxGrammarRepetition}`));
    return {};
}

/** `schema`, whose `keyword` must be at least `minimum`; leniently, without a `keyword` below it. */
export function atLeast(schema: SchemaObject, keyword: string, minimum: number, path: string, strictness: SchemaStrictness): SchemaObject {
    const value = schema[keyword];
    if (!(typeof value === "number" && value < minimum))
        return schema;
    strictness.refuse(unsupported(path, keyword, keyword === "maxProperties"
        ? `'maxProperties' below the ${minimum} properties listed cannot be enforced: the grammar cannot count the optional ones it writes`
        : `'${keyword}' below ${minimum} cannot be enforced: the grammar writes every listed entry`));
    const {[keyword]: _, ...rest} = schema;
    return rest;
}
