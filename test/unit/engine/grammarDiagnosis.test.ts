import {describe, expect, it} from "vitest";
import {diagnoseGrammar, readParseError} from "../../../src/engine/grammarDiagnosis.js";

describe("readParseError", () => {
    it("names the line and column where llama.cpp's parser stopped, from the rest of the grammar it echoes", () => {
        const grammar = "root ::= item+\nitem ::= [a-z]\nbad ::= ( \"x\"\n";
        const stderr = `parse: error parsing grammar: expecting ')' at \n\n${grammar}\n`;
        expect(readParseError(stderr, grammar)).toBe("line 4, column 1: expecting ')' at the end of the line");
        const inline = "root ::= \"a\" ::= \"b\"";
        expect(readParseError(`parse: error parsing grammar: expecting newline or end at ::= "b"\n\n${inline}\n`, inline))
            .toBe("line 1, column 14: expecting newline or end at '::= \"b\"'");
    });

    it("keeps a reason without a position, and log lines, as they are", () => {
        expect(readParseError("parse: error parsing grammar: Undefined rule identifier 'foo'\n\nroot ::= foo\n", "root ::= foo"))
            .toBe("Undefined rule identifier 'foo'");
        expect(readParseError("failed to parse grammar\ngrammar does not contain a 'root' symbol\n", "rot ::= \"a\""))
            .toBe("grammar does not contain a 'root' symbol");
        expect(readParseError("", "root ::= \"a\"")).toBeNull();
    });
});

// A real child process running llama.cpp's parser (about half a second each).
describe("diagnoseGrammar", () => {
    it("reads llama.cpp's own reason for refusing a grammar", async () => {
        expect(await diagnoseGrammar("root ::= answer\nanswer ::= \"yes\" | \"n\\qo\"\n"))
            .toBe("line 2, column 22: unknown escape at '\\qo\"'");
        expect(await diagnoseGrammar("root ::= \"a\"\n\"b\"")).toBe("line 2, column 1: expecting name at '\"b\"'");
        expect(await diagnoseGrammar("root ::= \"unclosed")).toBe("unexpected end of input");
        expect(await diagnoseGrammar("root ::= missing")).toBe("Undefined rule identifier 'missing'");
        expect(await diagnoseGrammar("root ::= root \"a\"")).toMatch(/left recursion/);
    }, 30_000);

    it("has nothing to say of a grammar that parses", async () => {
        expect(await diagnoseGrammar("root ::= \"ok\"")).toBeNull();
    }, 30_000);
});
