import {describe, expect, it} from "vitest";
import {JsonScanner} from "../../../../src/engine/reply/jsonScanner.js";

/** Feeds pieces until the value ends; returns the text that belongs to it. */
function scan(pieces: string[]): {value: string, complete: boolean} {
    const scanner = new JsonScanner();
    let value = "";
    for (const piece of pieces) {
        value += piece.slice(0, scanner.push(piece));
        if (scanner.isComplete)
            break;
    }
    return {value, complete: scanner.isComplete};
}

describe("JsonScanner", () => {
    it("ends an object at its closing brace, dropping what follows in the same piece", () => {
        expect(scan(["{\"a\": 1", "}\n\n\n"])).toEqual({value: "{\"a\": 1}", complete: true});
    });

    it("is not fooled by braces and escaped quotes inside strings", () => {
        const text = "{\"s\": \"}]\\\"{\", \"t\": [1, {\"u\": \"\\\\\"}]}";
        expect(scan([...text, "tail"])).toEqual({value: text, complete: true});
        expect(JSON.parse(text)).toEqual({s: "}]\"{", t: [1, {u: "\\"}]});
    });

    it("tracks nesting and open strings for the closing reserve", () => {
        const scanner = new JsonScanner();
        scanner.push("{\"a\": [{\"b\": \"x");
        expect(scanner.isInString).toBe(true);
        expect(scanner.openScopes).toBe(4);
        expect(scanner.isComplete).toBe(false);
    });

    it("ends a top-level string at its closing quote and a number at the first delimiter", () => {
        expect(scan(["\"a", "b\"", "c"])).toEqual({value: "\"ab\"", complete: true});
        expect(scan(["12", "3\n\n"])).toEqual({value: "123", complete: true});
    });

    it("accepts nothing once complete", () => {
        const scanner = new JsonScanner();
        expect(scanner.push("[]")).toBe(2);
        expect(scanner.push("[]")).toBe(0);
    });
});
