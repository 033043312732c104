import {describe, expect, it} from "vitest";
import {toConstrainedSchema} from "../../../src/json-schema/constrainedSchema.js";
import {BadRequestError} from "../../../src/errors.js";
import {thrownError} from "../support/thrownError.js";

const rejection = (schema: unknown) =>
    thrownError(BadRequestError, () => toConstrainedSchema(schema, "response_format.json_schema.schema"));

describe("toConstrainedSchema", () => {
    it("keeps what the grammar enforces: objects, arrays, enums, consts, string lengths, formats", () => {
        const schema = {
            type: "object",
            properties: {
                name: {type: "string", minLength: 1, maxLength: 20, description: "who"},
                when: {type: "string", format: "date"},
                tags: {type: "array", items: {type: "string"}, minItems: 1, maxItems: 3},
                kind: {enum: ["a", "b"]},
                version: {const: 2}
            },
            required: ["name"],
            additionalProperties: false,
            title: "ignored annotation",
            $schema: "http://json-schema.org/draft-07/schema#"
        };
        expect(toConstrainedSchema(schema, "p")).toEqual({
            type: "object",
            properties: {
                name: {type: "string", minLength: 1, maxLength: 20, description: "who"},
                when: {type: "string", pattern: expect.stringContaining("-02-29")},
                tags: {type: "array", items: {type: "string"}, minItems: 1, maxItems: 3},
                kind: {enum: ["a", "b"]},
                version: {const: 2}
            },
            // The others may be left out.
            required: ["name"],
            additionalProperties: false
        });
    });

    it("rewrites anyOf, type lists, nullable and definitions into what the grammar reads", () => {
        expect(toConstrainedSchema({anyOf: [{type: "string"}, {type: "null"}]}, "p")).toEqual({oneOf: [{type: "string"}, {type: "null"}]});
        expect(toConstrainedSchema({type: ["integer", "null"]}, "p")).toEqual({oneOf: [{type: "integer"}, {type: "null"}]});
        expect(toConstrainedSchema({type: "number", nullable: true}, "p")).toEqual({oneOf: [{type: "number"}, {type: "null"}]});
        expect(toConstrainedSchema({
            type: "object", properties: {a: {$ref: "#/definitions/A"}}, definitions: {A: {type: "boolean"}}
        }, "p")).toMatchObject({properties: {a: {$ref: "#/$defs/A"}}, $defs: {A: {type: "boolean"}}});
        // Annotations beside a $ref, as pydantic writes a documented field with a default, are fine.
        expect(toConstrainedSchema({
            type: "object", properties: {a: {$ref: "#/$defs/A", title: "A", description: "an a", default: true}}, $defs: {A: {type: "boolean"}}
        }, "p")).toMatchObject({properties: {a: {$ref: "#/$defs/A", description: "an a"}}});
    });

    it("reads false where it closes a tuple (zod 4's z.tuple) or forbids a property, and refuses it where it requires the impossible", () => {
        // z.toJSONSchema(z.tuple([z.string(), z.number()])), as zod 4 and LangChain write it.
        const tuple = {type: "array", prefixItems: [{type: "string"}, {type: "number"}], items: false, minItems: 2, maxItems: 2};
        expect(toConstrainedSchema(tuple, "p")).toEqual({type: "array", prefixItems: [{type: "string"}, {type: "number"}], minItems: 2, maxItems: 2});
        expect(toConstrainedSchema({type: "array", prefixItems: [{type: "string"}], items: false}, "p")).toMatchObject({maxItems: 1});
        expect(toConstrainedSchema({type: "array", items: false}, "p")).toMatchObject({maxItems: 0});
        expect(toConstrainedSchema({type: "object", properties: {a: {type: "string"}, b: false}, required: ["a"]}, "p"))
            .toMatchObject({properties: {a: {type: "string"}}, additionalProperties: false});
        // Alone, or with a schema for other keys: still closed, or refused, never any object.
        expect(toConstrainedSchema({type: "object", properties: {secret: false}}, "p")).toEqual({type: "object", properties: {}, additionalProperties: false});
        expect(rejection({type: "object", properties: {secret: false}, additionalProperties: {type: "string"}}))
            .toMatchObject({status: 400, param: "response_format.json_schema.schema.properties.secret"});
        expect(rejection({type: "array", prefixItems: [{type: "string"}], items: false, minItems: 2})).toMatchObject({status: 400, message: expect.stringContaining("no array")});
        expect(rejection({type: "object", properties: {b: false}, required: ["b"]})).toMatchObject({status: 400, param: "response_format.json_schema.schema.properties.b"});
        expect(rejection({type: "object", properties: {b: {anyOf: [false]}}})).toMatchObject({status: 400, message: expect.stringContaining("false matches nothing")});
        // JSON's 1e400 is Infinity once parsed: a const or enum value no reply can write.
        expect(rejection({const: JSON.parse("1e400")})).toMatchObject({status: 400, param: "response_format.json_schema.schema.const", code: "invalid_schema"});
        expect(rejection({enum: [1, JSON.parse("-1e400")]})).toMatchObject({status: 400, param: "response_format.json_schema.schema.enum[1]"});
    });

    it("keeps whole-number bounds on numbers in draft 2020's form, the tighter of two, and refuses a range with no number", () => {
        expect(toConstrainedSchema({type: "number", minimum: 0, maximum: 1}, "p")).toEqual({type: "number", minimum: 0, maximum: 1});
        // Draft 4's flag, and two lower bounds: the tighter (exclusive on a tie) counts.
        expect(toConstrainedSchema({type: "number", minimum: 0, exclusiveMinimum: true}, "p")).toEqual({type: "number", exclusiveMinimum: 0});
        expect(toConstrainedSchema({type: "number", minimum: 2, exclusiveMinimum: 2, exclusiveMaximum: 9}, "p")).toEqual({type: "number", exclusiveMinimum: 2, exclusiveMaximum: 9});
        expect(rejection({type: "number", exclusiveMinimum: 3, maximum: 3})).toMatchObject({status: 400, message: expect.stringContaining("leave no number")});
        expect(rejection({type: "number", maximum: 0.5})).toMatchObject({status: 400, param: "response_format.json_schema.schema.maximum", code: "unsupported_schema_keyword"});
        expect(rejection({type: "number", minimum: 2e9, exclusiveMinimum: true})).toMatchObject({status: 400, param: "response_format.json_schema.schema.exclusiveMinimum"});
        expect(rejection({type: "number", minimum: "5"})).toMatchObject({status: 400, param: "response_format.json_schema.schema.minimum", code: "invalid_schema"});
    });

    it("enforces pydantic's date, time, datetime, uuid, duration and ipv4 formats through patterns that take valid values and refuse others", () => {
        const patternOf = (format: string) => new RegExp((toConstrainedSchema({type: "string", format}, "p") as unknown as {pattern: string}).pattern);
        const cases: Record<string, [valid: string[], invalid: string[]]> = {
            date: [["2024-02-29", "2000-02-29", "0004-02-29", "2023-02-28", "2023-04-30", "2023-12-31", "0001-01-01"],
                ["2023-02-29", "1900-02-29", "2048-11-31", "0345-04-31", "2023-02-30", "0000-01-01", "2023-13-01", "2023-00-10", "2023-01-00", "23-01-01"]],
            time: [["00:00:00Z", "23:59:59.123+05:30", "12:00:00-00:00"], ["24:00:00Z", "12:60:00Z", "12:00:00", "12:00:00.1Z"]],
            "date-time": [["2024-02-29T10:24:57Z", "1999-12-31T23:59:59.999-08:00"], ["9162-02-30T10:24:57Z", "9210-11-31T18:11:33+15:33", "2024-02-29 10:24:57Z"]],
            uuid: [["123e4567-e89b-12d3-a456-426614174000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"], ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g"]],
            duration: [["P1D", "PT0S", "P1DT2H3M4.5S", "-P3W", "P1Y2M"], ["P", "PT", "P1DT", "1D", "P1H"]],
            ipv4: [["0.0.0.0", "192.168.1.255", "255.255.255.255"], ["256.1.1.1", "1.2.3", "01.2.3.4", "1.2.3.4.5"]]
        };
        for (const [format, [valid, invalid]] of Object.entries(cases)) {
            for (const value of valid)
                expect(value, `${format} ${value}`).toMatch(patternOf(format));
            for (const value of invalid)
                expect(value, `${format} ${value}`).not.toMatch(patternOf(format));
        }
        expect(rejection({type: "string", format: "date", maxLength: 10})).toMatchObject({param: "response_format.json_schema.schema.maxLength"});
        expect(rejection({type: "string", format: "uuid", maxLength: 36})).toMatchObject({param: "response_format.json_schema.schema.maxLength", message: expect.stringContaining("format: uuid")});
    });

    it("infers a missing type, and reads an empty schema or a bare object type as any value or any object", () => {
        expect(toConstrainedSchema({properties: {a: {type: "integer"}}}, "p")).toMatchObject({type: "object", additionalProperties: false});
        expect(toConstrainedSchema({type: "object"}, "p")).toEqual({type: "object", properties: {}, additionalProperties: true});
        expect(toConstrainedSchema({}, "p")).toHaveProperty("oneOf");
    });

    it.each([
        [{type: "string", pattern: "^(?=a)a+$"}, "response_format.json_schema.schema.pattern"],
        [{pattern: "^a+$"}, "response_format.json_schema.schema.pattern"],
        [{type: "string", pattern: "^a+$", maxLength: 3}, "response_format.json_schema.schema.maxLength"],
        [{type: "object", propertyNames: {pattern: "^a"}}, "response_format.json_schema.schema.propertyNames"],
        [{type: "object", properties: {n: {type: "number", minimum: 0.5}}}, "response_format.json_schema.schema.properties.n.minimum"],
        [{minimum: 0}, "response_format.json_schema.schema.minimum"],
        [{type: "array", items: {type: "string"}, uniqueItems: true}, "response_format.json_schema.schema.uniqueItems"],
        [{allOf: [{type: "string"}]}, "response_format.json_schema.schema.allOf"],
        [{type: "string", format: "email"}, "response_format.json_schema.schema.format"],
        [{type: "object", properties: {a: {$ref: "#/$defs/missing"}}}, "response_format.json_schema.schema.properties.a.$ref"],
        [{$defs: {a: {type: "string"}}, $ref: "#/$defs/a", maxLength: 3}, "response_format.json_schema.schema.maxLength"],
        [{$defs: {a: {type: "string"}}, $ref: "#/$defs/a", enum: ["x", "y"]}, "response_format.json_schema.schema.enum"],
        [{type: "object", $defs: {a: {type: "integer"}}, properties: {n: {$ref: "#/$defs/a", minimum: 5}}}, "response_format.json_schema.schema.properties.n.minimum"],
        [{type: "string", maxLength: 5000}, "response_format.json_schema.schema.maxLength"],
        [{type: "object", properties: {a: {type: "string"}, b: {type: "string"}}, maxProperties: 1}, "response_format.json_schema.schema.maxProperties"],
        [{type: "array", prefixItems: [{type: "string"}, {type: "string"}], maxItems: 1}, "response_format.json_schema.schema.maxItems"],
        [{type: "object", required: ["kind"], properties: {kind: {const: "x"}}, oneOf: [{properties: {a: {type: "integer"}}}]}, "response_format.json_schema.schema.type"]
    ])("rejects %j with a 400 naming the keyword", (schema, param) => {
        const error = rejection(schema);
        expect(error).toMatchObject({status: 400, param, code: "unsupported_schema_keyword"});
        expect(error.message).toContain(param.split(".").at(-1)!);
    });

    it("drops the ±(2^53 − 1) bounds zod's .int() writes, and keeps tighter integer bounds as inclusive integers", () => {
        const safe = {type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER};
        const converted = toConstrainedSchema({type: "object", properties: {n: safe}, required: ["n"]}, "p");
        expect(converted).toMatchObject({type: "object", properties: {n: {type: "integer"}}});
        expect(JSON.stringify(converted)).not.toMatch(/minimum|maximum/);
        expect(toConstrainedSchema({type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER}, "p"))
            .toEqual({type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER});
        expect(toConstrainedSchema({type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10.5}, "p")).toEqual({type: "integer", minimum: 1, maximum: 10});
        expect(toConstrainedSchema({type: "integer", minimum: 0.5, maximum: 3, exclusiveMaximum: true}, "p")).toEqual({type: "integer", minimum: 1, maximum: 2});
        expect(toConstrainedSchema({type: "integer", minimum: -1e300, maximum: 5}, "p")).toEqual({type: "integer", minimum: -Number.MAX_SAFE_INTEGER, maximum: 5});
        const draft4 = {type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, exclusiveMinimum: true, exclusiveMaximum: true};
        expect(toConstrainedSchema(draft4, "p")).toEqual({type: "integer", minimum: Number.MIN_SAFE_INTEGER + 1, maximum: Number.MAX_SAFE_INTEGER - 1});
        expect(toConstrainedSchema({type: "number", exclusiveMinimum: false, exclusiveMaximum: true}, "p")).toEqual({type: "number"});
        expect(rejection({type: "integer", minimum: 3, maximum: 2})).toMatchObject({code: "invalid_schema"});
        expect(rejection({type: "integer", minimum: 2 ** 60})).toMatchObject({code: "invalid_schema"});
        expect(rejection({type: "integer", minimum: "1"})).toMatchObject({param: "response_format.json_schema.schema.minimum", code: "invalid_schema"});
    });

    it("keeps a string's pattern (over its format, as zod writes both), and ignores a pattern on other types", () => {
        expect(toConstrainedSchema({type: "string", format: "uuid", pattern: "^[0-9a-f]{8}$", description: "id"}, "p"))
            .toEqual({type: "string", pattern: "^[0-9a-f]{8}$", description: "id"});
        expect(toConstrainedSchema({type: "integer", pattern: "^1"}, "p")).toEqual({type: "integer"});
    });

    it("reads draft-07 tuples (items as a list, additionalItems) as prefixItems", () => {
        expect(toConstrainedSchema({type: "array", items: [{type: "string"}, {type: "number"}], additionalItems: false, minItems: 2}, "p"))
            .toEqual({type: "array", prefixItems: [{type: "string"}, {type: "number"}], minItems: 2, maxItems: 2});
        expect(toConstrainedSchema({type: "array", items: [{type: "string"}], additionalItems: {type: "number"}}, "p"))
            .toEqual({type: "array", prefixItems: [{type: "string"}], items: {type: "number"}});
    });

    it("reads zod's records: propertyNames of type string says nothing, an enum of names lists the properties", () => {
        expect(toConstrainedSchema({type: "object", propertyNames: {type: "string"}, additionalProperties: {type: "number"}}, "p"))
            .toEqual({type: "object", properties: {}, additionalProperties: {type: "number"}});
        expect(toConstrainedSchema({type: "object", propertyNames: {type: "string", enum: ["a", "b"]}, additionalProperties: {type: "number"}, required: ["a"]}, "p"))
            .toEqual({type: "object", properties: {a: {type: "number"}, b: {type: "number"}}, required: ["a"], additionalProperties: false});
    });

    it("rejects a required property that is not listed, and values that are not schemas", () => {
        expect(rejection({type: "object", properties: {a: {type: "string"}}, required: ["b"]}))
            .toMatchObject({param: "response_format.json_schema.schema.required", code: "invalid_schema"});
        expect(rejection({type: "object", properties: {a: 5}})).toMatchObject({param: "response_format.json_schema.schema.properties.a"});
        expect(rejection({type: "date"})).toMatchObject({param: "response_format.json_schema.schema.type"});
        expect(rejection({enum: [{a: 1}]})).toMatchObject({param: "response_format.json_schema.schema.enum[0]"});
        expect(rejection({enum: []})).toMatchObject({param: "response_format.json_schema.schema.enum", code: "invalid_schema"});
        expect(rejection({anyOf: []})).toMatchObject({param: "response_format.json_schema.schema.anyOf", code: "invalid_schema"});
    });
});

describe("nested alternatives", () => {
    /** Eight levels of `oneOf` over `n` refs to the next level: n^8 ways to begin. */
    function chain(n: number) {
        const $defs: Record<string, unknown> = {d8: {type: "string"}};
        for (let level = 7; level >= 0; level--)
            $defs[`d${level}`] = {anyOf: Array.from({length: n}, () => ({$ref: `#/$defs/d${level + 1}`}))};
        return {type: "object", properties: {v: {$ref: "#/$defs/d0"}}, $defs};
    }

    it("refuses alternatives that multiply past what constrained decoding can follow, naming where", () => {
        expect(() => toConstrainedSchema(chain(10), "schema")).toThrow(expect.objectContaining({
            status: 400, code: "unsupported_schema_keyword", param: expect.stringMatching(/^schema\.\$defs\.d\d$/),
            message: expect.stringContaining("ways for the value to begin")
        }));
    });

    it("keeps schemas whose alternatives stay within bounds, recursive ones included", () => {
        expect(() => toConstrainedSchema(chain(3), "schema")).not.toThrow();
        const tree = {$ref: "#/$defs/node", $defs: {node: {anyOf: [{type: "string"}, {type: "array", items: {$ref: "#/$defs/node"}}]}}};
        expect(() => toConstrainedSchema(tree, "schema")).not.toThrow();
    });

    // Each of these was answered with JSON that broke the schema: the builder went by one keyword.
    it.each([
        ["a string's minLength above its maxLength", {type: "string", minLength: 5, maxLength: 2}, "leave no string"],
        ["an object's minProperties above its maxProperties", {type: "object", minProperties: 3, maxProperties: 1}, "leave no object"],
        ["more properties asked for than a closed object lists", {type: "object", properties: {a: {type: "integer"}}, minProperties: 3}, "more than the 1 properties"],
        ["zod's record of no names, with one entry asked for", {type: "object", propertyNames: {enum: []}, minProperties: 1}, "more than the 0 properties"],
        ["an enum with no value of its type", {type: "integer", enum: ["a", "b"]}, "matches nothing"],
        ["a const not of its type", {type: "string", const: 5}, "matches nothing"],
        ["a type that is not a type's name", {type: 5}, "'type' must be"],
        ["required that is not a list", {type: "object", properties: {a: {type: "string"}}, required: "a"}, "'required' must be"]
    ])("refuses %s with a 400", (_case, schema, reason) => {
        expect(rejection(schema)).toMatchObject({status: 400, code: "invalid_schema", message: expect.stringContaining(reason)});
    });

    it("keeps the enum values of the schema's type, as JSON Schema reads the two together", () => {
        expect(toConstrainedSchema({type: "integer", enum: [1, "one", 2.5, 3]}, "p")).toEqual({enum: [1, 3]});
        expect(toConstrainedSchema({type: ["string", "null"], enum: ["a", null, 1]}, "p")).toEqual({enum: ["a", null]});
        expect(toConstrainedSchema({type: "object", properties: {a: {type: "string"}}, additionalProperties: true, minProperties: 3}, "p"))
            .toMatchObject({minProperties: 3});
    });

    it("refuses property names and strings of mixed enums that node-llama-cpp cannot write: control characters, unpaired surrogates", () => {
        for (const schema of [{enum: [1, "\u0000"]}, {enum: [null, "x\ud800"]}, {type: "object", properties: {"k\u0008": {type: "string"}}}])
            expect(rejection(schema)).toMatchObject({status: 400, message: expect.stringContaining("cannot write")});
        // Enums of strings alone, and string consts, are written by chatserve's own rule, which escapes anything.
        expect(toConstrainedSchema({enum: ["\u0000", "\ud800", "😀"]}, "p")).toEqual({enum: ["\u0000", "\ud800", "😀"]});
        expect(toConstrainedSchema({const: "a\bc"}, "p")).toEqual({const: "a\bc"});
    });

    it("reads an enum's type before it looks at what its strings hold; draft 3's 'any' keeps every value", () => {
        expect(toConstrainedSchema({type: "string", enum: ["a\u0001b", "c", null]}, "p")).toEqual({enum: ["a\u0001b", "c"]});
        expect(toConstrainedSchema({type: "any", enum: ["a", 1]}, "p")).toEqual({enum: ["a", 1]});
        expect(rejection({type: "foo", enum: ["a"]})).toMatchObject({status: 400, message: expect.stringContaining("unknown type 'foo'")});
    });
});

describe("nesting through definitions", () => {
    /** `n` definitions in a row: each an object whose property refers to the next, or only a `$ref` to it. */
    function chain(n: number, link: "object" | "ref") {
        const $defs: Record<string, unknown> = {[`d${n}`]: {type: "string"}};
        for (let index = 0; index < n; index++)
            $defs[`d${index}`] = link === "ref" ? {$ref: `#/$defs/d${index + 1}`} : {type: "object", properties: {x: {$ref: `#/$defs/d${index + 1}`}}, required: ["x"]};
        return {type: "object", properties: {v: {$ref: "#/$defs/d0"}}, $defs};
    }

    // 10,000 nested definitions overflowed the stack of the grammar builder (and of the alternatives count): a 500.
    it.each(["object", "ref"] as const)("refuses a chain of definitions (%s links) that nests past the limit, in a flat body", (link) => {
        for (const n of [200, 10_000])
            expect(() => toConstrainedSchema(chain(n, link), "schema")).toThrow(expect.objectContaining({
                status: 400, code: "unsupported_schema_keyword", message: expect.stringContaining("nests more than 128 levels deep")
            }));
    });

    it("keeps shorter chains and recursive schemas", () => {
        expect(() => toConstrainedSchema(chain(30, "object"), "schema")).not.toThrow();
        expect(() => toConstrainedSchema(chain(100, "ref"), "schema")).not.toThrow();
        const tree = {$ref: "#/$defs/node", $defs: {node: {type: "object", properties: {children: {type: "array", items: {$ref: "#/$defs/node"}}}}}};
        expect(() => toConstrainedSchema(tree, "schema")).not.toThrow();
    });
});
