import {describe, expect, it} from "vitest";
import {stringEnumGbnf} from "../../../../src/engine/reply/stringEnumTrie.js";

type Alternative = {text: string, next: string | null};

/** The rules of `stringEnumGbnf`'s output: each a list of alternatives, a literal then at most one rule reference. */
function readRules(gbnf: string, name: string): Map<string, Alternative[]> {
    const rules = new Map<string, Alternative[]>();
    gbnf.split("\n").forEach((line, index) => {
        const [rule, body] = index === 0 ? [name, line] : [line.slice(0, line.indexOf(" ::= ")), line.slice(line.indexOf(" ::= ") + 5)];
        const alternatives = [...body.matchAll(/"((?:[^"\\]|\\.)*)"(?: ([\w-]+))?( \| |$)/g)];
        // The alternatives account for the whole body: nothing the reader above would skip.
        expect(alternatives.map((match) => match[0]).join("")).toBe(body);
        rules.set(rule, alternatives.map((match) => ({text: unescape(match[1]!), next: match[2] ?? null})));
    });
    return rules;
}

function unescape(literal: string): string {
    return literal.replace(/\\(x[0-9A-F]{2}|u[0-9A-F]{4}|U[0-9A-F]{8}|["\\])/g, (_, escape: string) =>
        escape.length === 1 ? escape : String.fromCodePoint(parseInt(escape.slice(1), 16)));
}

/** Every text the grammar allows (its language is finite: the tree has no cycles). */
function language(gbnf: string, name = "r"): string[] {
    const rules = readRules(gbnf, name);
    const texts: string[] = [];
    const pending: Array<[string, string]> = [["", name]];
    while (pending.length > 0) {
        const [prefix, rule] = pending.pop()!;
        for (const {text, next} of rules.get(rule)!)
            if (next == null)
                texts.push(prefix + text);
            else
                pending.push([prefix + text, next]);
    }
    return texts.sort();
}

const jsonTexts = (values: string[]) => [...new Set(values)].map((value) => JSON.stringify(value)).sort();

describe("stringEnumGbnf", () => {
    it("allows exactly each value's JSON text, a value that is a prefix of another included", () => {
        const values = ["a", "ab", "abc", "b", "", "ba"];
        expect(language(stringEnumGbnf(values, "r"))).toEqual(jsonTexts(values));
    });

    it("writes each value as JSON.stringify does: quotes, backslashes, control characters, non-ASCII and lone surrogates escaped alike", () => {
        const values = ["say \"hi\"", "C:\\path", "tab\there", "line\nbreak", "\u0001\b\f", "café", "日本", "😀", "\uD800 lone", "\u2028", "del\u007F", "| ::= #"];
        const texts = language(stringEnumGbnf(values, "r"));
        expect(texts).toEqual(jsonTexts(values));
        expect(texts.map((text) => JSON.parse(text)).sort()).toEqual([...values].sort());
    });

    it("writes anything but printable ASCII as a code point escape, so the grammar text stays ASCII", () => {
        const gbnf = stringEnumGbnf(["é", "😀", "\u007F"], "r");
        expect(gbnf).toMatch(/^[\x20-\x7E\n]*$/);
        expect(gbnf).toContain("\\xE9");
        expect(gbnf).toContain("\\U0001F600");
        expect(gbnf).toContain("\\x7F");
    });

    it("writes a duplicated value once", () => {
        expect(stringEnumGbnf(["x", "y", "x"], "r")).toBe(stringEnumGbnf(["x", "y"], "r"));
        expect(language(stringEnumGbnf(["same", "same"], "r"))).toEqual(["\"same\""]);
    });

    it("holds at most one alternative per distinct next character: 10,000 values fork at most 11 ways", () => {
        const values = Array.from({length: 10_000}, (_, index) => `v${index}`);
        const gbnf = stringEnumGbnf(values, "r");
        const rules = readRules(gbnf, "r");
        for (const alternatives of rules.values()) {
            const firsts = alternatives.map(({text}) => [...text][0]);
            expect(new Set(firsts).size).toBe(firsts.length);
            expect(firsts.length).toBeLessThanOrEqual(11);
        }
        expect(rules.get("r")).toEqual([{text: "\"v", next: "r-1"}]);
        expect(language(gbnf)).toEqual(jsonTexts(values));
    });

    it("keeps a single value, or a chain of prefixes as deep as the longest value, flat: one rule per fork", () => {
        expect(stringEnumGbnf(["only"], "r")).toBe("\"\\\"only\\\"\"");
        const chain = Array.from({length: 3000}, (_, index) => "a".repeat(index + 1));
        const gbnf = stringEnumGbnf(chain, "r");
        expect(gbnf).not.toContain("(");
        expect(language(gbnf)).toEqual(jsonTexts(chain));
    });

    it("refuses an empty enum", () => {
        expect(() => stringEnumGbnf([], "r")).toThrow(RangeError);
    });
});
