import {describe, expect, it} from "vitest";
import {parseExactJson} from "../../../src/json-schema/exactJson.js";

describe("parseExactJson", () => {
    it("keeps an integer JavaScript cannot hold exactly as the string of its digits", () => {
        expect(parseExactJson('{"order_id": 1234567890123456789, "items": [-98765432109876543210, 3]}'))
            .toEqual({order_id: "1234567890123456789", items: ["-98765432109876543210", 3]});
    });

    it("parses everything else as JSON.parse does", () => {
        const text = '{"a": 9007199254740991, "b": 10.10, "c": 1e3, "d": -0.5, "e": [true, null], "f": "12345678901234567890"}';
        expect(parseExactJson(text)).toEqual(JSON.parse(text));
    });

    it("leaves digits inside strings alone, escaped quotes included", () => {
        expect(parseExactJson('{"note": "id \\"1234567890123456789\\" 1234567890123456789"}'))
            .toEqual({note: 'id "1234567890123456789" 1234567890123456789'});
    });

    it("throws on text that is not JSON", () => {
        expect(() => parseExactJson("{order: 1}")).toThrow(SyntaxError);
        expect(() => parseExactJson("not json")).toThrow(SyntaxError);
    });
});
