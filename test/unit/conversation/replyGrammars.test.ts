import {describe, expect, it} from "vitest";
import {anyJson, anyObject} from "../../../src/json-schema/constrainedSchema.js";
import {compileGrammars} from "../../../src/conversation/replyGrammars.js";
import type {SchemaOrigins} from "../../../src/json-schema/schemaStrictness.js";
import type {LoadedModel} from "../../../src/engine/loadedModel.js";
import type {JsonSchema, ReplyFormat} from "../../../src/engine/generationOptions.js";
import {BadRequestError, ServiceShuttingDownError} from "../../../src/errors.js";
import {thrownError} from "../support/thrownError.js";

/** llama.cpp's grammar parser refuses a left recursion: this model refuses any schema with a `$ref`. */
const recursive = {$ref: "#/$defs/a", $defs: {a: {$ref: "#/$defs/a"}}} as unknown as JsonSchema;
const objectRecursive = {type: "object", properties: {a: {$ref: "#/$defs/a"}}, $defs: {a: {$ref: "#/$defs/a"}}} as unknown as JsonSchema;
function model(stopped?: Error): LoadedModel & {compiled: unknown[]} {
    const compiled: unknown[] = [];
    return {
        compiled,
        compileSchema(schema: JsonSchema | null) {
            if (stopped != null)
                throw stopped;
            if (JSON.stringify(schema).includes("$ref"))
                throw new Error("left recursion");
            compiled.push(schema);
        }
    } as unknown as LoadedModel & {compiled: unknown[]};
}

const origins = (strict: boolean): SchemaOrigins => ({
    tools: [{param: "tools[0].function.parameters", strict}],
    json: {param: "response_format", strict},
    ignored: []
});
const tools = (parameters: JsonSchema, extra: Partial<Extract<ReplyFormat, {type: "toolCalls"}>> = {}): ReplyFormat =>
    ({type: "toolCalls", tools: [{name: "f", parameters}], choice: "auto", parallel: true, ...extra});

describe("compileGrammars", () => {
    it("keeps schemas llama.cpp compiles, whatever the flag", () => {
        const format = tools(anyObject, {answer: {schema: null}});
        expect(compileGrammars(model(), format, origins(true))).toEqual(format);
    });

    it("strict: a 400 naming the schema llama.cpp cannot compile", () => {
        expect(thrownError(BadRequestError, () => compileGrammars(model(), tools(objectRecursive), origins(true))))
            .toMatchObject({status: 400, code: "unsupported_schema_keyword", param: "tools[0].function.parameters", message: expect.stringContaining("left recursion")});
        expect(thrownError(BadRequestError, () => compileGrammars(model(), {type: "json", schema: recursive}, origins(true))))
            .toMatchObject({param: "response_format"});
    });

    it("lenient: a tool's parameters fall back to any object, a JSON reply to any value (any object for an object schema), noted", () => {
        const lenient = origins(false);
        const engine = model();
        expect(compileGrammars(engine, tools(objectRecursive, {answer: {schema: recursive}}), lenient))
            .toEqual(tools(anyObject, {answer: {schema: anyJson}}));
        expect(compileGrammars(engine, {type: "json", schema: objectRecursive}, lenient)).toEqual({type: "json", schema: anyObject});
        expect(lenient.ignored.map((note) => note.param)).toEqual(["tools[0].function.parameters", "response_format", "response_format"]);
        expect(engine.compiled).toEqual([anyObject, anyJson, anyObject]);
    });

    it("leaves the tools of tool_choice none uncompiled, and passes on a model that stopped serving", () => {
        expect(compileGrammars(model(), tools(objectRecursive, {choice: "none"}), origins(true))).toMatchObject({tools: [{parameters: objectRecursive}]});
        const stopped = new ServiceShuttingDownError();
        expect(() => compileGrammars(model(stopped), tools(anyObject), origins(false))).toThrow(stopped);
    });
});
