/**
 * Reads JSON Schema's `pattern` (ECMA-262 regular-expression syntax) into a tree of character sets,
 * sequences, alternatives and repetitions, for patternGrammar.ts to write as GBNF. Only the regular
 * part of the syntax is read: alternation, groups, classes, escapes, quantifiers, `^`/`$` at the
 * ends. Lookarounds, backreferences and word boundaries are not regular: a PatternError says so.
 */
export class PatternError extends Error {}

export type CharSet = {negated: boolean, ranges: Array<[number, number]>};
export type PatternNode =
    | {kind: "chars", set: CharSet}
    | {kind: "sequence", items: PatternNode[]}
    | {kind: "alternatives", options: PatternNode[]}
    | {kind: "repeat", node: PatternNode, min: number, max: number | null};

/** llama.cpp's grammar parser refuses larger repetition counts (MAX_REPETITION_THRESHOLD). */
const maxRepetition = 2000;

export class PatternParser {
    private position = 0;
    private depth = 0;

    public constructor(private readonly pattern: string) {}

    public parseTopLevel(): Array<{node: PatternNode, anchoredStart: boolean, anchoredEnd: boolean}> {
        const alternatives = [];
        for (;;) {
            const anchoredStart = this.eat("^");
            const items = this.parseItems();
            const anchoredEnd = this.eat("$");
            if (anchoredEnd && !this.atEnd() && this.peek() !== "|")
                throw new PatternError("'$' is only supported at the end of the pattern");
            alternatives.push({node: {kind: "sequence", items} as PatternNode, anchoredStart, anchoredEnd});
            if (this.atEnd())
                return alternatives;
            if (!this.eat("|"))
                throw new PatternError(`unexpected '${this.peek()}' at ${this.position}`);
        }
    }

    private parseAlternatives(): PatternNode {
        const options = [{kind: "sequence", items: this.parseItems()} as PatternNode];
        while (this.eat("|"))
            options.push({kind: "sequence", items: this.parseItems()});
        return options.length === 1 ? options[0]! : {kind: "alternatives", options};
    }

    private parseItems(): PatternNode[] {
        const items: PatternNode[] = [];
        while (!this.atEnd() && this.peek() !== "|" && this.peek() !== ")" && !(this.peek() === "$" && this.depth === 0))
            items.push(this.parseQuantified());
        return items;
    }

    private parseQuantified(): PatternNode {
        const node = this.parseAtom();
        const bounds = this.parseQuantifier();
        if (bounds == null)
            return node;
        if (node.kind === "chars" && isAstral(node.set))
            throw new PatternError(ambiguousAstral);
        this.eat("?"); // lazy: the same language
        const [min, max] = bounds;
        if (min > maxRepetition || (max ?? 0) > maxRepetition)
            throw new PatternError(`repetition counts above ${maxRepetition} are not supported`);
        if (max != null && max < min)
            throw new PatternError(`the repetition {${min},${max}} is out of order`);
        return {kind: "repeat", node, min, max};
    }

    private parseQuantifier(): [number, number | null] | null {
        if (this.eat("*"))
            return [0, null];
        if (this.eat("+"))
            return [1, null];
        if (this.eat("?"))
            return [0, 1];
        const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.pattern.slice(this.position));
        if (braces == null)
            return null;
        this.position += braces[0].length;
        const min = Number(braces[1]);
        return [min, braces[2] == null ? min : braces[3] === "" ? null : Number(braces[3])];
    }

    private parseAtom(): PatternNode {
        const char = this.next();
        switch (char) {
            case "(": {
                if (this.eat("?")) {
                    if (this.eat("<") && !["=", "!"].includes(this.peek() ?? "")) {
                        const close = this.pattern.indexOf(">", this.position);
                        if (close < 0)
                            throw new PatternError("unterminated group name");
                        this.position = close + 1;
                    } else if (!this.eat(":"))
                        throw new PatternError("lookahead and lookbehind assertions are not supported");
                }
                this.depth++;
                const node = this.parseAlternatives();
                this.depth--;
                if (!this.eat(")"))
                    throw new PatternError("unterminated group");
                return node;
            }
            case "[":
                return {kind: "chars", set: this.parseClass()};
            case ".":
                return {kind: "chars", set: {negated: true, ranges: [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]}};
            case "\\":
                return {kind: "chars", set: this.parseEscape(false)};
            case "^": case "$":
                throw new PatternError(`'${char}' is only supported at the start and end of the pattern`);
            case ")": case "*": case "+": case "?":
                throw new PatternError(`unexpected '${char}' at ${this.position - 1}`);
            default:
                return {kind: "chars", set: single(this.codePointRead())};
        }
    }

    private parseClass(): CharSet {
        const negated = this.eat("^");
        const ranges: Array<[number, number]> = [];
        while (!this.eat("]")) {
            if (this.atEnd())
                throw new PatternError("unterminated character class");
            const low = this.classAtom();
            const [first] = low.ranges;
            if (this.peek() === "-" && this.pattern[this.position + 1] !== "]" && !low.negated && low.ranges.length === 1 && first![0] === first![1]) {
                this.position++;
                const high = this.classAtom();
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

    private classAtom(): CharSet {
        const char = this.next();
        const set = char === "\\" ? this.parseEscape(true) : single(this.codePointRead());
        // A character beyond U+FFFF, or half of one, in a class: one unit or two, by the flag.
        const [low, high] = set.ranges[0]!;
        if (!set.negated && set.ranges.length === 1 && (high > 0xffff || (high >= 0xd800 && low <= 0xdfff)))
            throw new PatternError(ambiguousAstral);
        return set;
    }

    private parseEscape(inClass: boolean): CharSet {
        const char = this.next();
        const digits: CharSet = {negated: false, ranges: [[0x30, 0x39]]};
        const word: CharSet = {negated: false, ranges: [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]};
        const space: CharSet = {negated: false, ranges: [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
            [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]]};
        switch (char) {
            case "d": return digits;
            case "D": return {...digits, negated: true};
            case "w": return word;
            case "W": return {...word, negated: true};
            case "s": return space;
            case "S": return {...space, negated: true};
            case "n": return single(0x0a);
            case "t": return single(0x09);
            case "r": return single(0x0d);
            case "f": return single(0x0c);
            case "v": return single(0x0b);
            case "0": return single(0);
            case "x": return single(this.hex(/^[0-9a-fA-F]{2}/));
            case "u": {
                if (this.peek() === "{")
                    throw new PatternError("'\\u{…}' means a code point with the u flag and 'u' repeated without it; write \\uXXXX or the character");
                const unit = this.hex(/^[0-9a-fA-F]{4}/);
                // An escaped surrogate pair (\uD83D\uDE00) is one character either way.
                const low = !inClass && unit >= 0xd800 && unit <= 0xdbff ? /^\\u(d[c-f][0-9a-f]{2})/i.exec(this.pattern.slice(this.position)) : null;
                if (low == null)
                    return single(unit);
                this.position += low[0].length;
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
                return single(this.codePointRead());
        }
    }

    private hex(shape: RegExp): number {
        const digits = shape.exec(this.pattern.slice(this.position))?.[0];
        if (digits == null)
            throw new PatternError("a malformed \\x or \\u escape");
        this.position += digits.length;
        return parseInt(digits, 16);
    }

    /** The code point whose first unit `next()` just read, taking its low surrogate too. */
    private codePointRead(): number {
        const codePoint = this.pattern.codePointAt(this.position - 1)!;
        if (codePoint > 0xffff)
            this.position++;
        return codePoint;
    }

    private next(): string {
        if (this.atEnd())
            throw new PatternError("the pattern ends too early");
        return this.pattern[this.position++]!;
    }

    private peek(): string | undefined {
        return this.pattern[this.position];
    }

    private eat(char: string): boolean {
        if (this.pattern[this.position] !== char)
            return false;
        this.position++;
        return true;
    }

    private atEnd(): boolean {
        return this.position >= this.pattern.length;
    }
}

/**
 * Characters beyond U+FFFF are two UTF-16 units to a regular expression without the u flag (zod's,
 * most validators') and one with it (ajv's): where the two readings differ, the pattern is refused,
 * and the grammar writes such characters only where a pattern spells them out.
 */
const ambiguousAstral = "a class or quantifier over characters beyond U+FFFF means different things with and without the u flag";

function isAstral(set: CharSet): boolean {
    return !set.negated && set.ranges.length === 1 && set.ranges[0]![0] > 0xffff;
}

function single(codePoint: number): CharSet {
    return {negated: false, ranges: [[codePoint, codePoint]]};
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

