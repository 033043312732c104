import {describe, expect, it} from "vitest";
import {minimalJsonLength} from "../../../../src/engine/reply/minimalJson.js";

describe("minimalJsonLength", () => {
    it("is the length of the shortest matching JSON text", () => {
        // {"city":"","unit":"c"}
        expect(minimalJsonLength({type: "object", properties: {city: {type: "string"}, unit: {enum: ["c", "fahrenheit"]}}, required: ["city", "unit"]}))
            .toBe("{\"city\":\"\",\"unit\":\"c\"}".length);
        expect(minimalJsonLength({type: "array", items: {type: "integer"}, minItems: 2})).toBe("[0,0]".length);
        // Optional properties can be left out: {"city":""}; all of them, where minProperties asks for more than the required ones.
        const weather = {type: "object", properties: {city: {type: "string"}, unit: {enum: ["c", "fahrenheit"]}, days: {type: "integer"}}, required: ["city"]} as const;
        expect(minimalJsonLength(weather)).toBe("{\"city\":\"\"}".length);
        expect(minimalJsonLength({...weather, minProperties: 2} as never)).toBe("{\"city\":\"\",\"unit\":\"c\",\"days\":0}".length);
        expect(minimalJsonLength({type: "object", properties: {city: {type: "string"}}} as never)).toBe(2);
        expect(minimalJsonLength({oneOf: [{type: "boolean"}, {type: "null"}]})).toBe(4);
        expect(minimalJsonLength({type: "string", minLength: 3})).toBe(5);
    });

    it("follows $defs references, and stops following a recursive one", () => {
        const tree = {
            type: "object",
            properties: {child: {$ref: "#/$defs/node"}},
            required: ["child"],
            $defs: {node: {type: "object", properties: {next: {$ref: "#/$defs/node"}}, required: ["next"]}}
        } as const;
        expect(minimalJsonLength(tree as never)).toBeGreaterThan(10);
        expect(Number.isFinite(minimalJsonLength(tree as never))).toBe(true);
    });

    it("measures each definition once, however often it is referred to", () => {
        // def0 is a oneOf of 20 refs to def1, and so on: followed afresh, 20^4 visits of def4.
        const defs: Record<string, unknown> = {def4: {type: "string"}};
        for (let level = 3; level >= 0; level--)
            defs[`def${level}`] = {oneOf: Array.from({length: 20}, () => ({$ref: `#/$defs/def${level + 1}`}))};
        let reads = 0;
        const $defs = new Proxy(defs, {get: (target, name) => (reads++, target[name as string])});
        expect(minimalJsonLength({$ref: "#/$defs/def0", $defs} as never)).toBe(2);
        expect(reads).toBeLessThanOrEqual(5);
    });

    it("counts an array's required items once, not once per item", () => {
        let reads = 0;
        const array = {type: "array", minItems: 2000, get items() {
            reads++;
            return {type: "null"};
        }};
        expect(minimalJsonLength(array as never)).toBe(2 + 2000 * 4 + 1999);
        expect(reads).toBeLessThanOrEqual(2);
    });
});
