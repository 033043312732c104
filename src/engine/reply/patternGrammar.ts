import type {CharSet} from "./patternClasses.js";
import {PatternError} from "./patternCursor.js";
import {PatternParser, type PatternNode} from "./patternParser.js";

export {PatternError};

/** Rules a pattern may expand to, so `(a{1,2000}){1,2000}` is refused rather than built. */
const maxExpandedSize = 20_000;
/** Any character of a JSON string, escapes included (an unanchored pattern's surroundings). */
const anyJsonChar = String.raw`([^"\\\x7F\x00-\x1F] | "\\" ["\\/bfnrt] | "\\u" [0-9a-fA-F]{4})`;

/**
 * JSON Schema's `pattern` (an ECMA-262 regular expression) → a GBNF expression for the body of a
 * JSON string whose decoded value the pattern matches, as llama.cpp's own json-schema-to-grammar
 * does for llama-server. zod writes patterns for `.regex()`, `.uuid()`, `.email()` and `z.iso.*`.
 *
 * The regular part of the syntax is read: alternation, groups, classes, escapes, quantifiers,
 * `^`/`$` at the ends. Lookarounds, backreferences and word boundaries are not regular and are
 * refused with a PatternError saying so. Characters JSON must escape are written escaped; classes
 * that exclude characters (`[^…]`, `.`) also exclude the ones JSON must escape, a stricter but
 * still matching language.
 */
export function patternToGbnf(pattern: string): string {
    return toGbnf(pattern, "jsonString");
}

/**
 * A regular expression → a GBNF expression for raw text the pattern matches whole (vLLM's
 * `structured_outputs.regex`, `guided_regex`): the reply is the match, so a pattern is anchored at
 * both ends whether it says `^…$` or not, and characters are written as themselves.
 */
export function regexToGbnf(pattern: string): string {
    return toGbnf(pattern, "text");
}

/** What the grammar writes: the body of a JSON string (characters escaped as JSON needs), or raw text. */
type Target = "jsonString" | "text";

function toGbnf(pattern: string, target: Target): string {
    const parser = new PatternParser(pattern);
    const alternatives = parser.parseTopLevel();
    const rendered = alternatives.map(({node, anchoredStart, anchoredEnd}) => {
        if (expandedSize(node) > maxExpandedSize)
            throw new PatternError(`it repeats too much to be turned into a grammar (more than ${maxExpandedSize} elements)`);
        refuseRepeatedEmpty(node);
        const body = render(node, target);
        if (target === "text")
            return body;
        return [anchoredStart ? null : `${anyJsonChar}*`, body, anchoredEnd ? null : `${anyJsonChar}*`].filter(Boolean).join(" ");
    });
    return rendered.length === 1 ? `(${rendered[0]})` : `(${rendered.join(" | ")})`;
}

function expandedSize(node: PatternNode): number {
    switch (node.kind) {
        case "chars": return 1;
        case "sequence": return node.items.reduce((sum, item) => sum + expandedSize(item), 0);
        case "alternatives": return node.options.reduce((sum, option) => sum + expandedSize(option), 0);
        case "repeat": return expandedSize(node.node) * Math.max(1, node.max ?? node.min + 1);
    }
}

/**
 * A part that can match nothing, repeated without bound (`(?:)*`, `(a?)+`), is a left recursion
 * to llama.cpp's grammar parser, and repeated many times it outgrows the parser's limits.
 */
function refuseRepeatedEmpty(node: PatternNode): void {
    if (node.kind === "repeat" && canBeEmpty(node.node) && (node.max == null || node.max > 100))
        throw new PatternError("a part that can match the empty string is repeated without bound (or more than 100 times)");
    const children = node.kind === "sequence" ? node.items : node.kind === "alternatives" ? node.options : node.kind === "repeat" ? [node.node] : [];
    children.forEach(refuseRepeatedEmpty);
}

function canBeEmpty(node: PatternNode): boolean {
    switch (node.kind) {
        case "chars": return false;
        case "sequence": return node.items.every(canBeEmpty);
        case "alternatives": return node.options.some(canBeEmpty);
        case "repeat": return node.min === 0 || canBeEmpty(node.node);
    }
}

function render(node: PatternNode, target: Target): string {
    switch (node.kind) {
        case "chars": return target === "text" ? renderTextChars(node.set) : renderChars(node.set);
        case "sequence": return node.items.length === 0 ? "\"\"" : node.items.map((item) => render(item, target)).join(" ");
        case "alternatives": return `(${node.options.map((option) => render(option, target)).join(" | ")})`;
        case "repeat": {
            const inner = `(${render(node.node, target)})`;
            return node.max == null ? `${inner}{${node.min},}` : `${inner}{${node.min},${node.max}}`;
        }
    }
}

/** Characters a JSON string holds only escaped (`"`, `\`, controls), and lone surrogates, which it cannot hold. */
const mustEscape: Array<[number, number]> = [[0x00, 0x1f], [0x22, 0x22], [0x5c, 0x5c], [0x7f, 0x7f], [0xd800, 0xdfff]];
/**
 * Beyond U+FFFF: two UTF-16 units to a regular expression without the u flag, one with it. A class,
 * `.` or `\S` never yields them (a character either reading counts alike); a pattern can spell one out.
 */
const astral: Array<[number, number]> = [[0x10000, 0x10ffff]];
const escapes: Record<number, string> = {0x22: "\\\"", 0x5c: "\\\\", 0x0a: "\\n", 0x09: "\\t", 0x0d: "\\r", 0x0c: "\\f", 0x08: "\\b"};

function renderChars(set: CharSet): string {
    const ranges = set.ranges.map(([low, high]): [number, number] => [low, high]);
    if (set.negated) {
        const excluded = [...ranges, ...mustEscape, ...astral];
        if (subtract([[0, 0x10ffff]], excluded).length === 0)
            throw new PatternError("a character class matches nothing");
        return `[^${excluded.map(renderRange).join("")}]`;
    }

    const spelledOut = ranges.length === 1 && ranges[0]![0] === ranges[0]![1];
    const plain = subtract(ranges, spelledOut ? mustEscape : [...mustEscape, ...astral]);
    const escaped = [0x22, 0x5c, ...Array.from({length: 0x20}, (_, code) => code), 0x7f]
        .filter((code) => ranges.some(([low, high]) => code >= low && code <= high))
        .map((code) => gbnfLiteral(escapes[code] ?? `\\u${code.toString(16).padStart(4, "0")}`));
    const parts = [...(plain.length > 0 ? [`[${plain.map(renderRange).join("")}]`] : []), ...escaped];
    if (parts.length === 0)
        throw new PatternError("a character class matches nothing");
    return parts.length === 1 ? parts[0]! : `(${parts.join(" | ")})`;
}

/**
 * Raw text: every character as itself, but NUL (which ends a string in llama.cpp's grammar) and
 * lone surrogates (which UTF-8 cannot hold) never; classes and `.` leave out characters beyond
 * U+FFFF as they do in a JSON string (why: `astral`).
 */
const neverInText: Array<[number, number]> = [[0x00, 0x00], [0xd800, 0xdfff]];

function renderTextChars(set: CharSet): string {
    const ranges = set.ranges.map(([low, high]): [number, number] => [low, high]);
    if (set.negated) {
        const excluded = [...ranges, ...neverInText, ...astral];
        if (subtract([[0, 0x10ffff]], excluded).length === 0)
            throw new PatternError("a character class matches nothing");
        return `[^${excluded.map(renderRange).join("")}]`;
    }
    const spelledOut = ranges.length === 1 && ranges[0]![0] === ranges[0]![1];
    const plain = subtract(ranges, spelledOut ? neverInText : [...neverInText, ...astral]);
    if (plain.length === 0)
        throw new PatternError("a character class matches nothing");
    return `[${plain.map(renderRange).join("")}]`;
}

function subtract(ranges: ReadonlyArray<[number, number]>, removed: ReadonlyArray<[number, number]>): Array<[number, number]> {
    let result = [...ranges];
    for (const [cutLow, cutHigh] of removed)
        result = result.flatMap(([low, high]): Array<[number, number]> => {
            if (cutHigh < low || cutLow > high)
                return [[low, high]];
            return [...(low < cutLow ? [[low, cutLow - 1] as [number, number]] : []), ...(high > cutHigh ? [[cutHigh + 1, high] as [number, number]] : [])];
        });
    return result;
}

function renderRange([low, high]: [number, number]): string {
    return low === high ? gbnfChar(low) : `${gbnfChar(low)}-${gbnfChar(high)}`;
}

function gbnfChar(codePoint: number): string {
    if (/[0-9A-Za-z]/.test(String.fromCodePoint(codePoint)))
        return String.fromCodePoint(codePoint);
    const hex = codePoint.toString(16).toUpperCase();
    return codePoint < 0x100 ? `\\x${hex.padStart(2, "0")}` : codePoint < 0x10000 ? `\\u${hex.padStart(4, "0")}` : `\\U${hex.padStart(8, "0")}`;
}

function gbnfLiteral(text: string): string {
    return `"${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}
