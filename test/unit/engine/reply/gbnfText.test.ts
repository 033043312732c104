import {describe, expect, it} from "vitest";
import {gbnfString, valueRule} from "../../../../src/engine/reply/gbnfText.js";

describe("GBNF text", () => {
    it("takes a JSON grammar's value without the blank lines that end a JSON reply", () => {
        const grammar = "root ::= \"{\" ws ( \"\\\"a\\\"\" \":\" [ ]? int )? ws \"}\" \"\\n\\n\\n\\n\" [\\n]*\nint ::= [0-9]+";
        expect(valueRule(grammar, "root")).toBe("\"{\" ws ( \"\\\"a\\\"\" \":\" [ ]? int )? ws \"}\"");
        expect(valueRule("other ::= \"x\"", "root")).toBe("root");
    });

    it("quotes a literal with its escapes", () => {
        expect(gbnfString("a\"b\\\n")).toBe("\"a\\\"b\\\\\\n\"");
    });
});
