import {describe, expect, it} from "vitest";
import {markCustomRules, withCustomRules} from "../../../../src/engine/reply/customRules.js";
import {integerRangeGbnf} from "../../../../src/engine/reply/integerRange.js";

describe("markCustomRules and withCustomRules", () => {
    it("stands in a marker for each distinct pattern or integer range, then swaps the marker's literal for its rule", () => {
        const {schema, rules} = markCustomRules({type: "object", properties: {
            a: {type: "string", pattern: "^x$"},
            b: {type: "array", items: {type: "string", pattern: "^x$"}},
            c: {type: "integer", minimum: 1, maximum: 3},
            d: {type: "integer"}
        }, required: ["a", "b", "c", "d"]});
        const [first, second] = rules.map((rule) => rule.name);
        expect(first).toMatch(/^chatserve-rule-[0-9a-f]{16}-0$/);
        expect(schema).toEqual({type: "object", properties: {a: {const: first}, b: {type: "array", items: {const: first}}, c: {const: second}, d: {type: "integer"}}, required: ["a", "b", "c", "d"]});
        expect(rules).toEqual([{name: first, gbnf: "([x])", quoted: true}, {name: second, gbnf: "[1-3]", quoted: false}]);
        expect(withCustomRules(`root ::= "\\"${first}\\"" "," "\\"${second}\\""`, rules)).toBe([
            `root ::= "\\"" ${first} "\\"" "," ${second}`,
            `${first} ::= ([x])`,
            `${second} ::= [1-3]`
        ].join("\n"));
    });

    it("writes an enum of strings (or a string const) as a prefix tree of its own (the JSON text, quotes included), one rule per distinct enum; other enums are left to node-llama-cpp", () => {
        const {schema, rules} = markCustomRules({type: "object", properties: {
            a: {enum: ["ab", "ac"], description: "two"},
            b: {type: "array", items: {enum: ["ab", "ac"]}},
            c: {enum: ["x", 1, null]},
            d: {const: "x"}
        }, required: ["a", "b", "c", "d"]});
        const [first, second] = rules.map((rule) => rule.name);
        expect(schema).toEqual({type: "object", properties: {
            a: {const: first}, b: {type: "array", items: {const: first}}, c: {enum: ["x", 1, null]}, d: {const: second}
        }, required: ["a", "b", "c", "d"]});
        expect(rules).toEqual([
            {name: first, gbnf: `"\\"a" ${first}-1\n${first}-1 ::= "b\\"" | "c\\""`, quoted: false},
            {name: second, gbnf: `"\\"x\\""`, quoted: false}
        ]);
        expect(withCustomRules(`root ::= "\\"${first}\\""`, rules.slice(0, 1))).toBe([
            `root ::= ${first}`,
            `${first} ::= "\\"a" ${first}-1`,
            `${first}-1 ::= "b\\"" | "c\\""`
        ].join("\n"));
    });

    it("lists an object's properties under marker keys where some are optional, its values marked as any (optionalProperties.ts)", () => {
        const {schema, rules, objects} = markCustomRules({type: "object", properties: {a: {type: "string", pattern: "^x$"}, b: {type: "integer"}}, required: ["b"]});
        const [object] = objects;
        expect(object).toEqual({keyPrefix: expect.stringMatching(/^chatserve-key-[0-9a-f]{16}-0-$/), ruleName: expect.stringMatching(/^chatserve-object-/), required: [false, true]});
        expect(schema).toEqual({type: "object", properties: {[`${object!.keyPrefix}0:a`]: {const: rules[0]!.name}, [`${object!.keyPrefix}1:b`]: {type: "integer"}}, required: ["b"]});
        expect(markCustomRules({type: "object", properties: {a: {type: "string"}}, required: ["a"]}).objects).toEqual([]);
    });

    it("makes markers no client can write: a fresh nonce for every schema", () => {
        const schema = {type: "object", properties: {a: {type: "string", pattern: "^x$"}}};
        expect(markCustomRules(schema).rules[0]!.name).not.toBe(markCustomRules(schema).rules[0]!.name);
    });
});

describe("integerRangeGbnf", () => {
    // The rule's syntax is a subset of a JavaScript regular expression's once its literals are unquoted.
    const asRegExp = (gbnf: string) => new RegExp(`^${gbnf.replace(/"([^"]*)"/g, "$1").replace(/ /g, "")}$`);

    it.each([[1, 10], [0, 0], [-5, 5], [-100, -3], [13, 2021], [99, 100], [-1, 0], [305, 5099], [1, Number.MAX_SAFE_INTEGER], [-Number.MAX_SAFE_INTEGER, -7]])(
        "allows exactly the integers in [%d, %d], spelled as JSON spells them", (low, high) => {
            const rule = asRegExp(integerRangeGbnf(low, high));
            const probes = new Set<number>();
            for (const center of [low, high, 0, Math.floor(low / 2 + high / 2)])
                for (let offset = -25; offset <= 25; offset++)
                    if (Number.isSafeInteger(center + offset))
                        probes.add(center + offset);
            for (const value of probes)
                expect(rule.test(String(value)), String(value)).toBe(value >= low && value <= high);
            for (const spelling of ["-0", "00", "01", "+1", "1.0", ""])
                expect(rule.test(spelling), spelling).toBe(false);
        });

    it("as the rule for every integer, allows exactly those JavaScript reads exactly: ±(2^53 − 1)", () => {
        const rule = asRegExp(integerRangeGbnf(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
        for (const allowed of ["9007199254740991", "-9007199254740991", "9007199254739999", "8999999999999999", "1000000000000000", "0", "-1"])
            expect(rule.test(allowed), allowed).toBe(true);
        for (const refused of ["9007199254740992", "-9007199254740992", "9007199254741000", "9100000000000000", "10000000000000000", "0999"])
            expect(rule.test(refused), refused).toBe(false);
    });

    it("refuses an empty or unsafe range", () => {
        expect(() => integerRangeGbnf(2, 1)).toThrow(RangeError);
        expect(() => integerRangeGbnf(0, 2 ** 53)).toThrow(RangeError);
    });
});
