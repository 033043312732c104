import {describe, expect, it} from "vitest";
import {textUntilRules, transitions} from "../../../../src/engine/reply/textUntil.js";

/** Where the automaton first reaches the end: the length of the text it accepts. */
function acceptedLength(end: string, text: string): number {
    const move = transitions([...end]);
    let state = 0;
    for (const [at, char] of [...text].entries()) {
        state = move(state, char);
        if (state === end.length)
            return at + 1;
    }
    return -1;
}

describe("raw text up to the first place its end is written", () => {
    it.each([
        ["\n</parameter>", "<div>\n  <p>x</p>\n</div>\n</parameter>"],
        ["\n</parameter>", "a\n</param\n</parameter>"],
        ["\n</parameter>", "\n\n</parameter>"],
        ["<|\"|>", "say <|\"| <<|\"|>"],
        ["aab", "aaab"]
    ])("ends at %j's first occurrence in %j", (end, text) => {
        expect(acceptedLength(end, text)).toBe(text.indexOf(end) + end.length);
    });

    it("writes one rule per matched prefix, each able to go on with any character", () => {
        const rules = textUntilRules("\n</p>", "raw", (text) => JSON.stringify(text), (char) => char === "\n" ? "\\n" : char);
        expect(rules.split("\n")).toHaveLength(5);
        expect(rules).toContain("raw0 ::= \"\\n\" raw1");
        expect(rules).toMatch(/raw4 ::= .*"\\n" raw1.*">"(?! raw)/);
    });
});
