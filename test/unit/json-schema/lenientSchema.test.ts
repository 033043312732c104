// Schemas without strict: true (OpenAI's default) are hints: what the grammar cannot enforce is
// enforced as far as it can and otherwise left out, never a 400. With strict: true, the 400 stays.
import {describe, expect, it} from "vitest";
import {anyJson, anyObject, toConstrainedSchema} from "../../../src/json-schema/constrainedSchema.js";
import {SchemaStrictness} from "../../../src/json-schema/schemaStrictness.js";
import {BadRequestError} from "../../../src/errors.js";
import {claudeCodeTools, fetchParameters, mcpFetchParameters, mcpIssueParameters} from "../../fixtures/agentToolSchemas.js";
import {thrownError} from "../support/thrownError.js";

/** The schema read leniently, with the params of what it went without. */
function lenient(schema: unknown) {
    const strictness = SchemaStrictness.of(undefined);
    const converted = toConstrainedSchema(schema, "p", {strictness});
    return {converted, ignored: strictness.ignored.map((note) => note.param)};
}

const strictRejection = (schema: unknown) =>
    thrownError(BadRequestError, () => toConstrainedSchema(schema, "p", {strictness: SchemaStrictness.of(true)}));

describe("SchemaStrictness.of", () => {
    it("is strict only for strict: true, as OpenAI reads the flag", () => {
        expect([true, false, null, undefined].map((flag) => SchemaStrictness.of(flag).strict)).toEqual([true, false, false, false]);
        // A caller that names no rule gets the converter's reading from before the rule: strict.
        expect(() => toConstrainedSchema({type: "string", format: "uri"}, "p")).toThrow(BadRequestError);
    });
});

describe("a lenient schema", () => {
    it.each([
        ["a pattern the grammar cannot follow: a plain string", {type: "string", pattern: "^(?=a)a+$"}, {type: "string"}, ["p.pattern"]],
        ["a length beside a pattern: the pattern alone", {type: "string", pattern: "^a+$", maxLength: 3}, {type: "string", pattern: "^a+$"}, ["p.maxLength"]],
        ["an unknown format: a plain string, its lengths kept", {type: "string", format: "uri", minLength: 1}, {type: "string", minLength: 1}, ["p.format"]],
        ["a length beside a known format: the format alone", {type: "string", format: "uuid", maxLength: 36}, {type: "string", pattern: expect.stringContaining("[0-9a-fA-F]{8}")}, ["p.maxLength"]],
        ["maxLength above the grammar's limit: no maximum (a smaller one would refuse what the client allows)", {type: "string", minLength: 2, maxLength: 100_000}, {type: "string", minLength: 2}, ["p.maxLength"]],
        ["fractional bounds on a number: rounded outwards", {type: "number", minimum: 0.5, exclusiveMaximum: 9.5}, {type: "number", minimum: 0, exclusiveMaximum: 10}, ["p.minimum", "p.exclusiveMaximum"]],
        ["an exclusive bound beyond ±10^9: inclusive", {type: "number", exclusiveMinimum: 2e9}, {type: "number", minimum: 2e9}, ["p.exclusiveMinimum"]],
        ["keywords the grammar cannot express: left out", {type: "array", items: {type: "integer", multipleOf: 2}, uniqueItems: true}, {type: "array", items: {type: "integer"}}, ["p.uniqueItems", "p.items.multipleOf"]],
        ["propertyNames with a pattern: any key", {type: "object", propertyNames: {pattern: "^a"}, additionalProperties: {type: "string"}}, {type: "object", properties: {}, additionalProperties: {type: "string"}}, ["p.propertyNames"]],
        ["a bound beside $ref: the definition alone", {type: "object", properties: {n: {$ref: "#/$defs/a", minimum: 5}}, $defs: {a: {type: "integer"}}}, {type: "object", properties: {n: {$ref: "#/$defs/a"}}, additionalProperties: false, $defs: {a: {type: "integer"}}}, ["p.properties.n.minimum"]],
        ["a $ref outside the root's definitions: any value", {type: "object", properties: {a: {$ref: "https://example.com/a.json"}}}, {type: "object", properties: {a: anyJson}, additionalProperties: false}, ["p.properties.a.$ref"]],
        ["fewer properties allowed than listed: no maximum", {type: "object", properties: {a: {type: "string"}, b: {type: "string"}}, maxProperties: 1}, {type: "object", properties: {a: {type: "string"}, b: {type: "string"}}, additionalProperties: false}, ["p.maxProperties"]],
        ["a required property not listed: listed, with any value", {type: "object", properties: {a: {type: "string"}}, required: ["a", "b"]}, {type: "object", properties: {a: {type: "string"}, b: anyJson}, required: ["a", "b"], additionalProperties: false}, ["p.required"]],
        ["enum values that are not literals: the others", {enum: [{a: 1}, "x", 2]}, {enum: ["x", 2]}, ["p.enum[0]"]],
        ["a const object: the rest of the schema", {type: "object", const: {a: 1}}, anyObject, ["p.const"]],
        ["a property whose schema is false, beside other keys: not listed", {type: "object", properties: {secret: false}, additionalProperties: {type: "string"}}, {type: "object", properties: {}, additionalProperties: {type: "string"}}, ["p.properties.secret"]],
        ["a pattern on a value of any type: any value", {minimum: 0, pattern: "^a"}, anyJson, ["p.minimum", "p.pattern"]]
    ])("%s", (_case, schema, converted, ignored) => {
        expect(lenient(schema)).toEqual({converted, ignored});
        // The same schema, strict: the 400 naming the first of them, as before the rule.
        expect(strictRejection(schema)).toMatchObject({status: 400, param: ignored[0]});
    });

    it("follows alternatives beside a type when each branch says what it is, and the siblings when they say more", () => {
        const branches = {type: "object", oneOf: [{type: "object", properties: {a: {type: "string"}}}, {type: "object", properties: {b: {type: "integer"}}}]};
        expect(lenient(branches)).toEqual({
            converted: {oneOf: [
                {type: "object", properties: {a: {type: "string"}}, additionalProperties: false},
                {type: "object", properties: {b: {type: "integer"}}, additionalProperties: false}
            ]},
            ignored: ["p.type"]
        });
        // One of two required properties: the object is enforced, the choice between them is not.
        const either = {type: "object", properties: {a: {type: "string"}, b: {type: "string"}}, anyOf: [{required: ["a"]}, {required: ["b"]}]};
        expect(lenient(either)).toEqual({converted: {type: "object", properties: {a: {type: "string"}, b: {type: "string"}}, additionalProperties: false}, ignored: ["p.anyOf"]});
        expect(lenient({type: "string", anyOf: [{format: "email"}, {format: "uri"}]}).converted).toEqual({type: "string"});
        expect(strictRejection(either)).toMatchObject({param: "p.type"});
    });

    it("becomes any object, or any JSON value, when nothing of it can be enforced", () => {
        /** Definitions in a row, each an object whose property refers to the next: deeper than the limit. */
        const $defs: Record<string, unknown> = {d200: {type: "string"}};
        for (let index = 0; index < 200; index++)
            $defs[`d${index}`] = {type: "object", properties: {x: {$ref: `#/$defs/d${index + 1}`}}};
        expect(lenient({type: "object", properties: {v: {$ref: "#/$defs/d0"}}, $defs})).toEqual({converted: anyObject, ignored: [expect.stringMatching(/^p\.\$defs\.d\d+$/)]});
        expect(lenient({$ref: "#/$defs/d0", $defs}).converted).toEqual(anyJson);
        expect(strictRejection({$ref: "#/$defs/d0", $defs})).toMatchObject({message: expect.stringContaining("nests more than")});
    });

    it("still refuses, like a strict one, a schema that is malformed or that no value can satisfy", () => {
        for (const schema of [
            {type: "strnig"}, {type: "object", required: "a"}, {type: "string", pattern: 5}, {type: "string", minLength: -1},
            {enum: []}, {anyOf: []}, {type: "string", minLength: 5, maxLength: 2}, {type: "integer", enum: ["a"]},
            {type: "object", properties: {b: false}, required: ["b"]}, {type: "object", properties: {a: 5}}
        ]) {
            expect(() => lenient(schema), JSON.stringify(schema)).toThrow(expect.objectContaining({status: 400, code: "invalid_schema"}));
        }
    });
});

describe("what agents and MCP servers send, without strict", () => {
    it("the issue's tool: a uri, a maxLength of 100,000 and a look-ahead pattern become plain strings", () => {
        expect(lenient(fetchParameters)).toEqual({
            converted: {
                type: "object",
                properties: {url: {type: "string", description: "The URL to fetch"}, body: {type: "string"}, branch: {type: "string"}},
                required: ["url", "body", "branch"],
                additionalProperties: false
            },
            ignored: ["p.properties.url.format", "p.properties.body.maxLength", "p.properties.branch.pattern"]
        });
        expect(strictRejection(fetchParameters)).toMatchObject({status: 400, code: "unsupported_schema_keyword", param: "p.properties.url.format"});
    });

    it("the MCP fetch server's pydantic schema keeps what the grammar enforces: a url of at least one character, integer ranges", () => {
        const {converted, ignored} = lenient(mcpFetchParameters);
        expect(converted).toMatchObject({properties: {
            url: {type: "string", minLength: 1},
            max_length: {type: "integer", minimum: 1, maximum: 999_999},
            start_index: {type: "integer", minimum: 0}
        }});
        expect(ignored).toEqual(["p.properties.url.format", "p.properties.url.maxLength"]);
    });

    it("an MCP tool with annotations, emails, key patterns, sets, unions beside a type, conditionals and remote refs", () => {
        const {converted, ignored} = lenient(mcpIssueParameters);
        expect(converted).toMatchObject({
            type: "object",
            properties: {
                title: {type: "string", minLength: 1},
                assignee: {type: "string"},
                due: {type: "string", pattern: expect.stringContaining("T")},
                labels: {type: "array", items: {type: "string"}, maxItems: 10},
                env: {type: "object", additionalProperties: {type: "string"}},
                weight: {type: "number", minimum: 0, maximum: 10},
                target: {type: "object", properties: {repo: {type: "string"}, number: {type: "integer"}}},
                kind: {enum: ["bug", "feature"]},
                link: anyJson,
                body: {type: "string"}
            },
            additionalProperties: false
        });
        expect(ignored).toEqual(expect.arrayContaining([
            "p.properties.title.maxLength", "p.properties.assignee.format", "p.properties.labels.uniqueItems", "p.properties.labels.items.pattern",
            "p.properties.env.propertyNames", "p.properties.headers.patternProperties", "p.properties.weight.multipleOf",
            "p.properties.target.oneOf", "p.properties.link.$ref", "p.properties.body.if"
        ]));
    });

    it("Claude Code's tools: WebFetch's uri goes, TodoWrite is enforced whole", () => {
        expect(lenient(claudeCodeTools.WebFetch).ignored).toEqual(["p.properties.url.format"]);
        expect(lenient(claudeCodeTools.TodoWrite)).toEqual({converted: toConstrainedSchema(claudeCodeTools.TodoWrite, "p"), ignored: []});
    });
});
