import {getLlama, LlamaGrammar, type Llama} from "node-llama-cpp";
import {beforeAll, describe, expect, it} from "vitest";
import {notationGrammar} from "../../../../src/engine/reply/notationGrammar.js";
import {notationOf, notationToJson} from "../../../../src/engine/reply/notationJson.js";
import type {JsonSchema} from "../../../../src/engine/generationOptions.js";
import {gbnfRegExp} from "../../support/gbnfRegExp.js";

const quote = "<|\"|>";
const q = (text: string) => `${quote}${text}${quote}`;

// Each grammar is parsed by llama.cpp (no model is loaded), and, where it does not recurse (strings
// with a length bound), read as a regular expression to check which texts it allows.
let llama: Llama;
beforeAll(async () => { llama = await getLlama({gpu: false, build: "never"}); });

function grammarOf(schema: object): string {
    const {rules, value} = notationGrammar(schema as JsonSchema, quote);
    const grammar = `root ::= ${value}\n${rules}`;
    // Throws where llama.cpp cannot parse it.
    new LlamaGrammar(llama, {grammar});
    return grammar;
}

function allows(schema: object): (text: string) => boolean {
    const pattern = gbnfRegExp(grammarOf(schema));
    return (text) => pattern.test(text);
}

const short = {type: "string", maxLength: 12};

describe("Gemma 4's notation, as a grammar of the schema", () => {
    it("an object: bare keys in the template's (dictsort) order, required ones always, optional ones skippable, no other keys", () => {
        const ok = allows({type: "object", properties: {unit: short, Days: {type: "array", items: {type: "integer"}}, note: short},
            required: ["unit"], additionalProperties: false});
        for (const text of [`{unit:${q("c")}}`, `{Days:[1,2],unit:${q("c")}}`, `{Days:[],note:${q("n")},unit:${q("")}}`, `{note:${q("a, b}")},unit:${q("c")}}`])
            expect(ok(text), text).toBe(true);
        for (const text of [`{}`, `{unit:"c"}`, `{"unit":${q("c")}}`, `{unit:${q("c")},Days:[1]}`, `{unit:${q("c")},other:1}`, `{,unit:${q("c")}}`, `{unit:${q("c")},}`,
            `{Days:[1.5],unit:${q("c")}}`, `{unit:${q("c")} }`])
            expect(ok(text), text).toBe(false);
    });

    it("arrays: items and their counts, tuples", () => {
        const ok = allows({type: "array", items: {type: "boolean"}, minItems: 1, maxItems: 2});
        expect(["[true]", "[true,false]"].map(ok)).toEqual([true, true]);
        expect(["[]", "[true,false,true]", "[true, false]", "[1]"].map(ok)).toEqual([false, false, false, false]);
        const tuple = allows({type: "array", prefixItems: [short, {type: "integer"}], items: false});
        expect([`[${q("a")},1]`, `[${q("a")}]`, `[1,${q("a")}]`].map(tuple)).toEqual([true, false, false]);
    });

    it("enums, consts, unions, bounds and null", () => {
        const ok = allows({type: "object", properties: {
            mode: {type: "string", enum: ["fast", "slow"]}, level: {type: "integer", minimum: 1, maximum: 5}, ratio: {type: "number", minimum: 0, maximum: 1},
            pick: {enum: [1, "two", null]}, maybe: {oneOf: [short, {type: "null"}]}
        }, required: ["level", "maybe", "mode", "pick", "ratio"]});
        expect(ok(`{level:3,maybe:null,mode:${q("fast")},pick:${q("two")},ratio:0.5}`)).toBe(true);
        expect(ok(`{level:3,maybe:${q("x")},mode:${q("slow")},pick:null,ratio:1}`)).toBe(true);
        for (const text of [`{level:6,maybe:null,mode:${q("fast")},pick:1,ratio:0}`, `{level:3,maybe:null,mode:${q("medium")},pick:1,ratio:0}`,
            `{level:3,maybe:null,mode:${q("fast")},pick:2,ratio:0}`, `{level:3,maybe:null,mode:${q("fast")},pick:1,ratio:2}`])
            expect(ok(text), text).toBe(false);
    });

    it("llama.cpp parses what strings without a bound, patterns, open objects, any value and recursive definitions become", () => {
        for (const schema of [
            {type: "object", properties: {text: {type: "string"}, code: {type: "string", pattern: "^[A-Z]{3}$"}, loose: {type: "string", pattern: "x+"}}},
            {type: "object", properties: {}, additionalProperties: true}, {type: "object", properties: {a: {}}, additionalProperties: {type: "integer"}},
            {oneOf: [{type: ["string", "number", "boolean", "null"]}, {type: "object", additionalProperties: true}, {type: "array"}]},
            {$defs: {node: {type: "object", properties: {children: {type: "array", items: {$ref: "#/$defs/node"}}}}}, $ref: "#/$defs/node"}
        ])
            expect(() => grammarOf(schema)).not.toThrow();
    });
});

describe("Gemma 4's notation, read back as JSON", () => {
    it("a whole value at every depth: keys quoted, strings escaped, the rest as written", () => {
        expect(notationToJson(`{opts:{days:[1,-2.5e3],note:${q("a \"b\"\n{c}: d")},ok:true,none:null},tags:[${q("x,y")}]}`, quote))
            .toEqual({json: "{\"opts\":{\"days\":[1,-2.5e3],\"note\":\"a \\\"b\\\"\\n{c}: d\",\"ok\":true,\"none\":null},\"tags\":[\"x,y\"]}", complete: true});
        expect(notationToJson("{}", quote)).toEqual({json: "{}", complete: true});
        expect(notationToJson("[]", quote)).toEqual({json: "[]", complete: true});
    });

    it("a start of one: the JSON so far, a key held until its colon and a quote's start held at a string's end; never complete", () => {
        expect(notationToJson("{opts:{da", quote)).toEqual({json: "{\"opts\":{", complete: false});
        expect(notationToJson(`{a:${quote}te<|"`, quote)).toEqual({json: "{\"a\":\"te", complete: false});
        expect(notationToJson("[1,2", quote)).toEqual({json: "[1,2", complete: false});
        expect(notationToJson("{a:1},", quote).complete).toBe(false);
    });

    it("grows as the text does: each prefix's JSON begins the whole's", () => {
        const text = `{opts:{days:[1,2],unit:${q("c <| d")}},tags:[]}`;
        const whole = notationToJson(text, quote).json;
        for (let length = 0; length <= text.length; length++)
            expect(whole.startsWith(notationToJson(text.slice(0, length), quote).json), text.slice(0, length)).toBe(true);
        expect(JSON.parse(whole)).toEqual({opts: {days: [1, 2], unit: "c <| d"}, tags: []});
    });

    it("a value written as the template writes it: sorted keys, bare, strings quoted", () => {
        expect(notationOf({unit: "c", Days: [1, 2], nested: {b: false, a: null}}, quote)).toBe(`{Days:[1,2],nested:{a:null,b:false},unit:${q("c")}}`);
    });
});
