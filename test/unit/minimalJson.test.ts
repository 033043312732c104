import {describe, expect, it} from "vitest";
import {minimalJsonLength} from "../../src/engine/reply/minimalJson.js";

describe("minimalJsonLength", () => {
    it("is the length of the shortest matching JSON text", () => {
        // {"city":"","unit":"c"}
        expect(minimalJsonLength({type: "object", properties: {city: {type: "string"}, unit: {enum: ["c", "fahrenheit"]}}}))
            .toBe("{\"city\":\"\",\"unit\":\"c\"}".length);
        expect(minimalJsonLength({type: "array", items: {type: "integer"}, minItems: 2})).toBe("[0,0]".length);
        expect(minimalJsonLength({oneOf: [{type: "boolean"}, {type: "null"}]})).toBe(4);
        expect(minimalJsonLength({type: "string", minLength: 3})).toBe(5);
    });

    it("follows $defs references, and stops following a recursive one", () => {
        const tree = {
            type: "object",
            properties: {child: {$ref: "#/$defs/node"}},
            $defs: {node: {type: "object", properties: {next: {$ref: "#/$defs/node"}}}}
        } as const;
        expect(minimalJsonLength(tree as never)).toBeGreaterThan(10);
        expect(Number.isFinite(minimalJsonLength(tree as never))).toBe(true);
    });
});
