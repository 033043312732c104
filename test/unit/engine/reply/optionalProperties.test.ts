import {getLlama, type Llama, type LlamaModel} from "node-llama-cpp";
import {beforeAll, describe, expect, it} from "vitest";
import {ReplyGrammars} from "../../../../src/engine/reply/grammars.js";
import {requiredProperties} from "../../../../src/engine/reply/optionalProperties.js";
import type {JsonSchema} from "../../../../src/engine/generationOptions.js";
import {gbnfRegExp} from "../../support/gbnfRegExp.js";

// The grammars are node-llama-cpp's, rewritten, and parsed by llama.cpp (no model is loaded): each
// is then read as a regular expression to check which texts it allows.
let llama: Llama;
beforeAll(async () => { llama = await getLlama({gpu: false, build: "never"}); });

function allows(schema: object): (text: string) => boolean {
    const grammar = new ReplyGrammars({llama} as LlamaModel).compileJson(schema as JsonSchema).grammar;
    const pattern = gbnfRegExp(grammar);
    // node-llama-cpp's root ends a JSON value with four newlines (its stop trigger).
    return (text) => pattern.test(`${text}\n\n\n\n`);
}

const execCommand = {
    type: "object",
    properties: {
        cmd: {type: "string"},
        workdir: {type: "string"},
        timeout_ms: {type: "integer", minimum: 1},
        sandbox_permissions: {type: "string", enum: ["use_default", "require_escalated"]},
        justification: {type: "string", maxLength: 4}
    },
    required: ["cmd"],
    additionalProperties: false
};

describe("optional properties in the grammar", () => {
    it("lets an optional property be left out, in the schema's order, with no stray commas (Codex's exec_command)", () => {
        const ok = allows(execCommand);
        for (const text of [
            "{\"cmd\":\"ls\"}", "{\"cmd\": \"ls\", \"workdir\": \"/tmp\"}", "{\"cmd\":\"ls\",\"sandbox_permissions\":\"use_default\"}",
            "{\"cmd\":\"ls\",\"workdir\":\"/\",\"timeout_ms\":5,\"sandbox_permissions\":\"require_escalated\",\"justification\":\"why\"}",
            "{\n    \"cmd\": \"ls\",\n    \"timeout_ms\": 1\n}"
        ])
            expect(ok(text), text).toBe(true);
        for (const text of [
            "{}", "{\"workdir\":\"/\"}", "{\"workdir\":\"/\",\"cmd\":\"ls\"}", "{,\"cmd\":\"ls\"}", "{\"cmd\":\"ls\",}", "{\"cmd\":\"ls\",,\"workdir\":\"/\"}",
            // Values keep their rules: enums, bounds, lengths.
            "{\"cmd\":\"ls\",\"sandbox_permissions\":\"none\"}", "{\"cmd\":\"ls\",\"timeout_ms\":0}", "{\"cmd\":\"ls\",\"justification\":\"because\"}",
            "{\"cmd\":\"ls\",\"other\":1}"
        ])
            expect(ok(text), text).toBe(false);
    });

    it("with no property required, allows the empty object and any subset, the first written without a comma", () => {
        const ok = allows({type: "object", properties: {a: {type: "string"}, b: {type: "integer"}, c: {type: "boolean"}}, additionalProperties: false});
        for (const text of ["{}", "{ }", "{\"b\":1}", "{\"c\":true}", "{\"a\":\"x\",\"c\":true}", "{\"a\":\"x\",\"b\":2,\"c\":false}"])
            expect(ok(text), text).toBe(true);
        for (const text of ["{,\"b\":1}", "{\"b\":1,}", "{\"c\":true,\"a\":\"x\"}", "{\"b\":1,\"b\":1}"])
            expect(ok(text), text).toBe(false);
    });

    it("with a required property after optional ones, any of those may come first, and the required one is always there", () => {
        const ok = allows({type: "object", properties: {a: {type: "string"}, b: {type: "integer"}, c: {type: "boolean"}, d: {type: "null"}}, required: ["c"]});
        for (const text of ["{\"c\":true}", "{\"a\":\"\",\"c\":true}", "{\"b\":1,\"c\":true}", "{\"a\":\"\",\"b\":1,\"c\":true,\"d\":null}", "{\"c\":true,\"d\":null}"])
            expect(ok(text), text).toBe(true);
        for (const text of ["{}", "{\"a\":\"\"}", "{\"a\":\"\",\"b\":1}", "{\"d\":null}", "{,\"c\":true}"])
            expect(ok(text), text).toBe(false);
    });

    it("in nested objects, arrays of objects and definitions, each object by its own required list", () => {
        const ok = allows({
            type: "object",
            properties: {
                edits: {type: "array", items: {type: "object", properties: {path: {type: "string"}, line: {type: "integer"}}, required: ["path"]}},
                options: {$ref: "#/$defs/options"}
            },
            required: ["edits"],
            $defs: {options: {type: "object", properties: {dry: {type: "boolean"}, quiet: {type: "boolean"}}, required: ["quiet"]}}
        });
        for (const text of ["{\"edits\":[]}", "{\"edits\":[{\"path\":\"a\"},{\"path\":\"b\",\"line\":3}]}", "{\"edits\":[], \"options\": {\"quiet\": true}}", "{\"edits\":[],\"options\":{\"dry\":false,\"quiet\":true}}"])
            expect(ok(text), text).toBe(true);
        for (const text of ["{\"options\":{\"quiet\":true}}", "{\"edits\":[{\"line\":3}]}", "{\"edits\":[],\"options\":{}}", "{\"edits\":[],\"options\":{\"dry\":true}}"])
            expect(ok(text), text).toBe(false);
    });

    it("keeps other keys where additionalProperties lets them in, and node-llama-cpp's bound on how many", () => {
        const open = allows({type: "object", properties: {a: {type: "string"}}, additionalProperties: {type: "integer"}});
        for (const text of ["{}", "{\"a\":\"x\"}", "{\"z\":1}", "{\"z\":1,\"y\":2}", "{\"a\":\"x\",\"z\":1}"])
            expect(open(text), text).toBe(true);
        for (const text of ["{,\"z\":1}", "{\"z\":\"x\"}", "{\"z\":1,\"a\":\"x\"}"])
            expect(open(text), text).toBe(false);
        // At most 3 in all: node-llama-cpp allows 2 beyond the 1 listed, whether or not it is written.
        const bounded = allows({type: "object", properties: {a: {type: "string"}}, additionalProperties: {type: "integer"}, maxProperties: 3});
        for (const [text, allowed] of [["{\"z\":1,\"y\":2}", true], ["{\"a\":\"\",\"z\":1,\"y\":2}", true], ["{\"a\":\"\",\"z\":1,\"y\":2,\"x\":3}", false]] as const)
            expect(bounded(text), text).toBe(allowed);
    });

    it("writes every listed property where minProperties asks for more than the required ones", () => {
        const ok = allows({type: "object", properties: {a: {type: "string"}, b: {type: "integer"}}, required: ["a"], minProperties: 2});
        expect(ok("{\"a\":\"\",\"b\":1}")).toBe(true);
        expect(ok("{\"a\":\"\"}")).toBe(false);
        expect([...requiredProperties({properties: {a: {}, b: {}}, required: ["a"], minProperties: 2})]).toEqual(["a", "b"]);
        expect([...requiredProperties({properties: {a: {}, b: {}}, required: ["a", "zz"], minProperties: 1})]).toEqual(["a"]);
    });

    it("writes property names as JSON escapes them, and values with chatserve's own rules (patterns, string enums)", () => {
        const ok = allows({
            type: "object",
            properties: {"say \"hi\"\\": {type: "string", pattern: "^[a-c]{2}$"}, kind: {enum: ["x", "y"]}, "n": {type: "integer", minimum: 1, maximum: 9}},
            required: ["kind"]
        });
        for (const text of ["{\"kind\":\"x\"}", "{\"say \\\"hi\\\"\\\\\":\"ab\",\"kind\":\"y\",\"n\":9}"])
            expect(ok(text), text).toBe(true);
        for (const text of ["{\"say \\\"hi\\\"\\\\\":\"ad\",\"kind\":\"y\"}", "{\"kind\":\"z\"}", "{\"kind\":\"x\",\"n\":10}"])
            expect(ok(text), text).toBe(false);
    });

    it("compiles recursive definitions whose objects have optional properties (llama.cpp parses the grammar)", () => {
        const tree = {$ref: "#/$defs/node", $defs: {node: {type: "object", properties: {name: {type: "string"}, children: {type: "array", items: {$ref: "#/$defs/node"}}}, required: ["name"]}}};
        const grammar = new ReplyGrammars({llama} as LlamaModel).compileJson(tree as never).grammar;
        expect(grammar).toContain("-rest-1 ::=");
    });
});
