import {describe, expect, it} from "vitest";
import {PatternError, patternToGbnf} from "../../../../src/engine/reply/patternGrammar.js";

// What each pattern means is checked end to end against llama.cpp's grammar engine
// (test/e2e/toolCalling.test.ts: replies of random-weight models match zod's patterns).
describe("patternToGbnf", () => {
    it.each([
        ["uuid", "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000)$"],
        ["email", "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"],
        ["time", "^(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?$"],
        ["named group, lazy quantifier, escapes", "^(?<year>\\d{4})-\\x41\\u0042\\uD83D\\uDE00.+?[^\\s\\]]\\/$"],
        ["a character beyond U+FFFF spelled out, in a repeated group", "^(😀)+$"],
        ["an optional part repeated a few times", "^(a?){3}$"],
        ["groups nested 64 deep", `^${"(".repeat(64)}a${")".repeat(64)}$`]
    ])("reads the regular syntax zod and clients write (%s)", (_, pattern) => {
        expect(() => patternToGbnf(pattern)).not.toThrow();
    });

    it("writes the characters JSON escapes escaped, and keeps them out of excluding classes", () => {
        expect(patternToGbnf("^[\"a]$")).toBe(`(([a] | "\\\\\\""))`);
        expect(patternToGbnf("^\\\\$")).toBe(`("\\\\\\\\")`);
        expect(patternToGbnf("^[^a]$")).toBe("([^a\\x00-\\x1F\\x22\\x5C\\x7F\\uD800-\\uDFFF\\U00010000-\\U0010FFFF])");
    });

    it("never writes a character beyond U+FFFF where a regular expression with and without the u flag would count it differently", () => {
        // `.{1,3}`: "😀😀" is 2 characters to one reading and 4 to the other.
        expect(patternToGbnf("^.{1,3}$")).toContain("\\U00010000-\\U0010FFFF]");
        expect(patternToGbnf("^[\\S]$")).not.toMatch(/\\U0010FFFF/);
        expect(patternToGbnf("^\\uD83D\\uDE00$")).toBe("([\\U0001F600])");
    });

    it("lets an unanchored pattern match inside any string", () => {
        const gbnf = patternToGbnf("ab");
        expect(gbnf.startsWith("((")).toBe(true);
        expect(gbnf).toContain("[a] [b]");
        expect(gbnf.match(/\)\*/g)).toHaveLength(2);
    });

    it.each([
        ["^(?=a)a$", /lookahead/],
        ["^(?<!a)b$", /lookahead and lookbehind/],
        ["^(a)\\1$", /backreferences/],
        ["^\\bword$", /word boundaries/],
        ["^a^b$", /start and end/],
        ["^a$b", /only supported at the end/],
        ["^(ab", /unterminated group/],
        ["^[ab$", /unterminated character class/],
        ["^[z-a]$", /out of order/],
        ["^a{3,2}$", /out of order/],
        ["^a{2001}$", /above 2000/],
        ["^(a{1,200}){1,200}$", /repeats too much/],
        ["^[]$", /matches nothing/],
        ["^[^\\S\\D]$", /matches nothing/],
        ["^[^\\w\\W]$", /matches nothing/],
        ["^😀+$", /beyond U\+FFFF/],
        ["^[😀a]$", /beyond U\+FFFF/],
        ["^[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]$", /beyond U\+FFFF/],
        ["^\\u{22}$", /u flag/],
        ["^(?:)*$", /empty string/],
        ["^(a?)+$", /empty string/],
        ["^(\\w*){2000}$", /empty string/],
        ["^*a$", /unexpected/],
        // Thousands of groups overflowed the parser's stack: a 500.
        [`^${"(".repeat(50_000)}a${")".repeat(50_000)}$`, /nested deeper than 64/],
        [`^${"(?:".repeat(65)}a${")".repeat(65)}$`, /nested deeper than 64/]
    ])("refuses %s with a reason", (pattern, reason) => {
        expect(() => patternToGbnf(pattern)).toThrow(PatternError);
        expect(() => patternToGbnf(pattern)).toThrow(reason);
    });
});
