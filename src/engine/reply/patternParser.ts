import {ambiguousAstral, isAstral, notLineTerminator, parseClass, parseEscape, single, type CharSet} from "./patternClasses.js";
import {PatternCursor, PatternError} from "./patternCursor.js";

/**
 * Reads JSON Schema's `pattern` (ECMA-262 regular-expression syntax) into a tree of character sets,
 * sequences, alternatives and repetitions, for patternGrammar.ts to write as GBNF. Only the regular
 * part of the syntax is read: alternation, groups, classes, escapes, quantifiers, `^`/`$` at the
 * ends. Lookarounds, backreferences and word boundaries are not regular: a PatternError says so.
 * This file reads the structure; patternClasses.ts reads the character sets.
 */
export type PatternNode =
    | {kind: "chars", set: CharSet}
    | {kind: "sequence", items: PatternNode[]}
    | {kind: "alternatives", options: PatternNode[]}
    | {kind: "repeat", node: PatternNode, min: number, max: number | null};

/** llama.cpp's grammar parser refuses larger repetition counts (MAX_REPETITION_THRESHOLD). */
export const maxGrammarRepetition = 2000;

/**
 * Groups nest at most this deep: the parser and the grammar writer recurse per group, and thousands
 * of `(` overflowed the stack, a 500 for a schema that is only odd. Real patterns nest a few levels.
 */
export const maxGroupNesting = 64;

export class PatternParser {
    private readonly cursor: PatternCursor;
    private depth = 0;

    public constructor(pattern: string) {
        this.cursor = new PatternCursor(pattern);
    }

    public parseTopLevel(): Array<{node: PatternNode, anchoredStart: boolean, anchoredEnd: boolean}> {
        const cursor = this.cursor;
        const alternatives = [];
        for (;;) {
            const anchoredStart = cursor.eat("^");
            const items = this.parseItems();
            const anchoredEnd = cursor.eat("$");
            if (anchoredEnd && !cursor.atEnd() && cursor.peek() !== "|")
                throw new PatternError("'$' is only supported at the end of the pattern");
            alternatives.push({node: {kind: "sequence", items} as PatternNode, anchoredStart, anchoredEnd});
            if (cursor.atEnd())
                return alternatives;
            if (!cursor.eat("|"))
                throw new PatternError(`unexpected '${cursor.peek()}' at ${cursor.offset}`);
        }
    }

    private parseAlternatives(): PatternNode {
        const options = [{kind: "sequence", items: this.parseItems()} as PatternNode];
        while (this.cursor.eat("|"))
            options.push({kind: "sequence", items: this.parseItems()});
        return options.length === 1 ? options[0]! : {kind: "alternatives", options};
    }

    private parseItems(): PatternNode[] {
        const cursor = this.cursor;
        const items: PatternNode[] = [];
        while (!cursor.atEnd() && cursor.peek() !== "|" && cursor.peek() !== ")" && !(cursor.peek() === "$" && this.depth === 0))
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
        this.cursor.eat("?"); // lazy: the same language
        const [min, max] = bounds;
        if (min > maxGrammarRepetition || (max ?? 0) > maxGrammarRepetition)
            throw new PatternError(`repetition counts above ${maxGrammarRepetition} are not supported`);
        if (max != null && max < min)
            throw new PatternError(`the repetition {${min},${max}} is out of order`);
        return {kind: "repeat", node, min, max};
    }

    private parseQuantifier(): [number, number | null] | null {
        const cursor = this.cursor;
        if (cursor.eat("*"))
            return [0, null];
        if (cursor.eat("+"))
            return [1, null];
        if (cursor.eat("?"))
            return [0, 1];
        const braces = cursor.take(/^\{(\d+)(,(\d*))?\}/);
        if (braces == null)
            return null;
        const min = Number(braces[1]);
        return [min, braces[2] == null ? min : braces[3] === "" ? null : Number(braces[3])];
    }

    private parseAtom(): PatternNode {
        const cursor = this.cursor;
        const char = cursor.next();
        switch (char) {
            case "(":
                return this.parseGroup();
            case "[":
                return {kind: "chars", set: parseClass(cursor)};
            case ".":
                return {kind: "chars", set: notLineTerminator};
            case "\\":
                return {kind: "chars", set: parseEscape(cursor, false)};
            case "^": case "$":
                throw new PatternError(`'${char}' is only supported at the start and end of the pattern`);
            case ")": case "*": case "+": case "?":
                throw new PatternError(`unexpected '${char}' at ${cursor.offset - 1}`);
            default:
                return {kind: "chars", set: single(cursor.codePointRead())};
        }
    }

    /** A group, its `(` already read: capturing, named or not, all the same language. */
    private parseGroup(): PatternNode {
        const cursor = this.cursor;
        if (cursor.eat("?")) {
            if (cursor.eat("<") && !["=", "!"].includes(cursor.peek() ?? "")) {
                if (cursor.take(/^[^>]*>/) == null)
                    throw new PatternError("unterminated group name");
            } else if (!cursor.eat(":"))
                throw new PatternError("lookahead and lookbehind assertions are not supported");
        }
        if (++this.depth > maxGroupNesting)
            throw new PatternError(`groups nested deeper than ${maxGroupNesting} levels`);
        const node = this.parseAlternatives();
        this.depth--;
        if (!cursor.eat(")"))
            throw new PatternError("unterminated group");
        return node;
    }
}
