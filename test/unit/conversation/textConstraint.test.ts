import {getLlama, LlamaGrammar, type Llama} from "node-llama-cpp";
import {beforeAll, describe, expect, it} from "vitest";
import {toGrammarFormat} from "../../../src/conversation/textConstraint.js";
import type {TextConstraint} from "../../../src/conversation/conversation.js";
import {BadRequestError} from "../../../src/errors.js";

// Each constraint's GBNF is parsed by llama.cpp and texts are run through llama.cpp's own grammar
// matcher (node-llama-cpp's internal _testText: every code point accepted, and the grammar complete
// at the end), so what is pinned here is what decoding enforces. No model is loaded.
let llama: Llama;
beforeAll(async () => { llama = await getLlama({gpu: false, build: "never"}); });

function accepts(constraint: TextConstraint): (text: string) => boolean {
    const {grammar} = toGrammarFormat(constraint, "structured_outputs");
    const compiled = new LlamaGrammar(llama, {grammar}) as unknown as {_testText(text: string): boolean};
    return (text) => compiled._testText(text);
}

describe("a regex constraint", () => {
    it("matches the whole reply, anchored or not", () => {
        for (const pattern of ["\\d{3}-\\d{4}", "^\\d{3}-\\d{4}$"]) {
            const ok = accepts({kind: "regex", pattern});
            expect(ok("555-1234")).toBe(true);
            expect(ok("555-12345")).toBe(false);
            expect(ok("x555-1234")).toBe(false);
            expect(ok("555-123")).toBe(false);
        }
    });

    it("writes characters a JSON string would escape as themselves", () => {
        const ok = accepts({kind: "regex", pattern: "\"[a-z]+\"\\n\\\\"});
        expect(ok("\"abc\"\n\\")).toBe(true);
        expect(ok("\\\"abc\\\"\\n\\\\")).toBe(false);
        const any = accepts({kind: "regex", pattern: "[^a]{2}"});
        expect(any("\"\n")).toBe(true);
        expect(any("ab")).toBe(false);
    });

    it("reads alternation, groups, classes and bounded repetition", () => {
        const ok = accepts({kind: "regex", pattern: "(yes|no)( [A-Z][a-z]{0,3})?"});
        for (const text of ["yes", "no", "yes Abcd", "no B"])
            expect(ok(text)).toBe(true);
        for (const text of ["maybe", "yes abc", "no Abcde", "yesno"])
            expect(ok(text)).toBe(false);
    });

    it("refuses what is not regular with a 400 naming the field", () => {
        expect(() => toGrammarFormat({kind: "regex", pattern: "(a)\\1"}, "guided_regex")).toThrow(BadRequestError);
        try {
            toGrammarFormat({kind: "regex", pattern: "(?=a)a"}, "guided_regex");
        } catch (error) {
            expect((error as BadRequestError).param).toBe("guided_regex");
            expect((error as Error).message).toMatch(/guided_regex.*lookahead/);
        }
    });
});

describe("a choice constraint", () => {
    it("allows exactly one of the texts, one a prefix of another included", () => {
        const ok = accepts({kind: "choice", choices: ["a", "ab", "abc", "b\"\n", "ünï"]});
        for (const text of ["a", "ab", "abc", "b\"\n", "ünï"])
            expect(ok(text)).toBe(true);
        for (const text of ["", "abcd", "b", "ba", "ün", "\"a\""])
            expect(ok(text)).toBe(false);
    });

    it("allows the empty text when it is a choice", () => {
        const ok = accepts({kind: "choice", choices: ["", "x"]});
        expect(ok("")).toBe(true);
        expect(ok("x")).toBe(true);
        expect(ok("xx")).toBe(false);
    });

    it("stays one small rule per fork with thousands of choices", () => {
        const choices = Array.from({length: 3000}, (_, index) => `item-${index}`);
        const ok = accepts({kind: "choice", choices});
        expect(ok("item-2999")).toBe(true);
        expect(ok("item-3000")).toBe(false);
    });
});

describe("a GBNF constraint", () => {
    it("is handed to llama.cpp as the client wrote it", () => {
        expect(toGrammarFormat({kind: "gbnf", grammar: "root ::= \"x\""}, "grammar")).toEqual({type: "grammar", grammar: "root ::= \"x\""});
    });
});
