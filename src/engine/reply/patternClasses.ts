import {PatternError, type PatternCursor} from "./patternCursor.js";

/**
 * The character sets of a pattern: `[…]` classes, escapes (`\d`, `\u00e9`, …), `.` and literals,
 * each read as ranges of code points.
 */
export type CharSet = {negated: boolean, ranges: Array<[number, number]>};

const digitChars: CharSet = {negated: false, ranges: [[0x30, 0x39]]};
const wordChars: CharSet = {negated: false, ranges: [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]};
/** `\s`: ECMA-262's white space and line terminators. */
const spaceChars: CharSet = {negated: false, ranges: [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
    [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]]};
/** `.`: anything but a line terminator. */
export const notLineTerminator: CharSet = {negated: true, ranges: [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]};

/**
 * Characters beyond U+FFFF are two UTF-16 units to a regular expression without the u flag (zod's,
 * most validators') and one with it (ajv's): where the two readings differ, the pattern is refused,
 * and the grammar writes such characters only where a pattern spells them out.
 */
export const ambiguousAstral = "a class or quantifier over characters beyond U+FFFF means different things with and without the u flag";

export function isAstral(set: CharSet): boolean {
    return !set.negated && set.ranges.length === 1 && set.ranges[0]![0] > 0xffff;
}

export function single(codePoint: number): CharSet {
    return {negated: false, ranges: [[codePoint, codePoint]]};
}

/** A class, its `[` already read. */
export function parseClass(cursor: PatternCursor): CharSet {
    const negated = cursor.eat("^");
    const ranges: Array<[number, number]> = [];
    while (!cursor.eat("]")) {
        if (cursor.atEnd())
            throw new PatternError("unterminated character class");
        const low = classAtom(cursor);
        const [first] = low.ranges;
        if (cursor.peek() === "-" && cursor.peek(1) !== "]" && !low.negated && low.ranges.length === 1 && first![0] === first![1]) {
            cursor.next();
            const high = classAtom(cursor);
            if (high.negated || high.ranges.length !== 1)
                throw new PatternError("a class range must be between two characters");
            if (high.ranges[0]![0] < low.ranges[0]![0])
                throw new PatternError("a class range is out of order");
            ranges.push([low.ranges[0]![0], high.ranges[0]![0]]);
        } else if (low.negated)
            ranges.push(...complement(low.ranges));
        else
            ranges.push(...low.ranges);
    }
    return {negated, ranges};
}

function classAtom(cursor: PatternCursor): CharSet {
    const char = cursor.next();
    const set = char === "\\" ? parseEscape(cursor, true) : single(cursor.codePointRead());
    // A character beyond U+FFFF, or half of one, in a class: one unit or two, by the flag.
    const [low, high] = set.ranges[0]!;
    if (!set.negated && set.ranges.length === 1 && (high > 0xffff || (high >= 0xd800 && low <= 0xdfff)))
        throw new PatternError(ambiguousAstral);
    return set;
}

/** An escape, its `\` already read; `inClass` where `\b` is a backspace. */
export function parseEscape(cursor: PatternCursor, inClass: boolean): CharSet {
    const char = cursor.next();
    switch (char) {
        case "d": return digitChars;
        case "D": return {...digitChars, negated: true};
        case "w": return wordChars;
        case "W": return {...wordChars, negated: true};
        case "s": return spaceChars;
        case "S": return {...spaceChars, negated: true};
        case "n": return single(0x0a);
        case "t": return single(0x09);
        case "r": return single(0x0d);
        case "f": return single(0x0c);
        case "v": return single(0x0b);
        case "0": return single(0);
        case "x": return single(hex(cursor, /^[0-9a-fA-F]{2}/));
        case "u": {
            if (cursor.peek() === "{")
                throw new PatternError("'\\u{…}' means a code point with the u flag and 'u' repeated without it; write \\uXXXX or the character");
            const unit = hex(cursor, /^[0-9a-fA-F]{4}/);
            // An escaped surrogate pair (\uD83D\uDE00) is one character either way.
            const low = !inClass && unit >= 0xd800 && unit <= 0xdbff ? cursor.take(/^\\u(d[c-f][0-9a-f]{2})/i) : null;
            if (low == null)
                return single(unit);
            return single(0x10000 + ((unit - 0xd800) << 10) + (parseInt(low[1]!, 16) - 0xdc00));
        }
        case "b":
            if (inClass)
                return single(0x08);
            throw new PatternError("word boundaries (\\b) are not supported");
        case "B": case "c": case "k": case "p": case "P":
            throw new PatternError(`the escape '\\${char}' is not supported`);
        default:
            if (/[1-9]/.test(char))
                throw new PatternError("backreferences are not supported");
            return single(cursor.codePointRead());
    }
}

function hex(cursor: PatternCursor, shape: RegExp): number {
    const digits = cursor.take(shape);
    if (digits == null)
        throw new PatternError("a malformed \\x or \\u escape");
    return parseInt(digits[0], 16);
}

function complement(ranges: ReadonlyArray<[number, number]>): Array<[number, number]> {
    const result: Array<[number, number]> = [];
    let next = 0;
    for (const [low, high] of [...ranges].sort((a, b) => a[0] - b[0])) {
        if (low > next)
            result.push([next, low - 1]);
        next = Math.max(next, high + 1);
    }
    if (next <= 0x10ffff)
        result.push([next, 0x10ffff]);
    return result;
}
