import type {JsonSchema} from "../engine/generationOptions.js";
import {BadRequestError} from "../errors.js";
import {fromClientDialects} from "./schemaDialects.js";
import {refuseExplodingAlternatives} from "./schemaAlternatives.js";
import {refuseDeepSchemas} from "./schemaDepth.js";
import {literalsOfType, refuseMalformedKeywords} from "./schemaConsistency.js";
import {numericBounds} from "./schemaBounds.js";
import {asObject, invalid, isObject, unsupported, type SchemaObject} from "./schemaErrors.js";
import {branchesSayAll, literal, without, withoutUnenforceable, writableText} from "./schemaKeywords.js";
import {SchemaStrictness} from "./schemaStrictness.js";
import {convertTyped} from "./typedSchema.js";

/**
 * A client's JSON Schema → the schema the grammar is built from. What constrained decoding cannot
 * enforce is a 400 naming the keyword when the caller asked for strictness, and otherwise enforced
 * as far as the grammar can and left out (schemaStrictness.ts holds that rule; every refusal below
 * goes through it, followed by what the lenient reading does instead).
 *
 * Rewrites what the grammar builder does not read but can enforce the same way: `anyOf` (as
 * `oneOf`: the output matches one branch), type lists, `nullable`, `definitions`, and schemas
 * without `type` (inferred from their keywords; none at all means any JSON value). Strings'
 * `pattern`, numbers' bounds and enums of strings pass through to rules of chatserve's own (engine/reply/customRules.ts);
 * other dialects (draft-07 tuples, zod's records) are read first by schemaDialects.ts, and each
 * JSON type's own keywords by typedSchema.ts.
 */

/** Keywords a schema with `anyOf` / `oneOf` must not also have: the grammar follows one branch alone. */
const branchSiblings = ["type", "properties", "required", "additionalProperties", "items", "prefixItems", "enum", "const"];
/**
 * Validation keywords a schema with `$ref` must not also have: since 2019-09 they apply together with
 * the definition, but the grammar writes the definition alone (draft-07 ignored them, so one reading
 * or the other would fail in silence).
 */
const refSiblings = [
    ...branchSiblings, "anyOf", "oneOf", "minLength", "maxLength", "pattern", "format", ...numericBounds,
    "minItems", "maxItems", "minProperties", "maxProperties", "propertyNames", "additionalItems"
];
export const anyJson: JsonSchema = {
    oneOf: [{type: ["string", "number", "boolean", "null"]}, {type: "object", additionalProperties: true}, {type: "array"}]
};
/** What `{"type": "object"}` reads as. */
export const anyObject: JsonSchema = {type: "object", properties: {}, additionalProperties: true};

/** What stands for a schema of which nothing can be enforced, when it is only a hint: any object for an object schema, else any JSON value. */
export function fallbackFor(schema: unknown): JsonSchema {
    return isObject(schema) && schema.type === "object" ? anyObject : anyJson;
}

export type SchemaReading = {
    /** Strict unless told: a request's `strict` flag becomes one through `SchemaStrictness.of`. */
    strictness?: SchemaStrictness
};
/** What every level of the conversion needs: the root's definitions, and the rule for what cannot be enforced. */
type Reading = {defNames: ReadonlySet<string>, strictness: SchemaStrictness};

export function toConstrainedSchema(schema: unknown, param: string, {strictness = SchemaStrictness.strictly()}: SchemaReading = {}): JsonSchema {
    if (!isObject(schema))
        throw invalid(param, "a schema must be a JSON object");
    const defs = {...asObject(schema.definitions, `${param}.definitions`), ...asObject(schema.$defs, `${param}.$defs`)};
    const reading = {defNames: new Set(Object.keys(defs)), strictness};
    const converted = convert(schema, param, reading);
    const convertedDefs = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, convert(def, `${param}.$defs.${name}`, reading)]));
    const result = Object.keys(defs).length === 0 ? converted : {...converted, $defs: convertedDefs} as JsonSchema;
    try {
        // Depth first: counting alternatives recurses through '$ref's as well.
        refuseDeepSchemas(result, param);
        refuseExplodingAlternatives(result, param);
    } catch (error) {
        if (!(error instanceof BadRequestError))
            throw error;
        // These are about the whole schema: leniently, none of it is enforced.
        strictness.refuse(error);
        return fallbackFor(schema);
    }
    return result;
}

function convert(input: unknown, path: string, reading: Reading): JsonSchema {
    if (input === true)
        return anyJson;
    if (!isObject(input))
        throw invalid(path, input === false
            ? "the schema false matches nothing here (it can close a tuple as 'items', or forbid a property)"
            : "a schema must be a JSON object or true");
    const {strictness} = reading;
    let schema = withoutUnenforceable(fromClientDialects(input, path, strictness), path, strictness);
    if (schema.nullable === true) {
        const {nullable: _, ...rest} = schema;
        return {oneOf: [convert(rest, path, reading), {type: "null"}]};
    }

    refuseMalformedKeywords(schema, path);
    const description = typeof schema.description === "string" ? {description: schema.description} : {};
    if (typeof schema.$ref === "string") {
        // Leniently: the definition alone.
        for (const sibling of refSiblings.filter((name) => name in schema))
            strictness.refuse(unsupported(path, sibling, `'${sibling}' next to '$ref' cannot be enforced by constrained decoding; put it inside the definition`));
        const ref = toDefRef(schema.$ref, path, reading);
        return ref == null ? {...anyJson, ...description} : {$ref: ref, ...description} as JsonSchema;
    }
    if ("const" in schema) {
        const [value] = literal(schema.const, `${path}.const`, strictness);
        if (value !== undefined)
            return {const: literalsOfType([value], schema.type, `${path}.const`)[0], ...description} as JsonSchema;
        schema = without(schema, "const");
    }
    if (Array.isArray(schema.enum)) {
        if (schema.enum.length === 0)
            throw invalid(`${path}.enum`, "an empty enum matches nothing");
        const listed = schema.enum.flatMap((value, index) => literal(value, `${path}.enum[${index}]`, strictness));
        const values = listed.length === 0 ? [] : literalsOfType(listed, schema.type, `${path}.enum`);
        // Strings alone are written by chatserve's own rule (stringEnumTrie.ts); mixed with other values, by node-llama-cpp's.
        const written = values.some((value) => typeof value !== "string")
            ? values.filter((value) => typeof value !== "string" || writableText(value, `${path}.enum`, strictness) != null)
            : values;
        if (written.length > 0)
            return {enum: written, ...description} as JsonSchema;
        // Leniently, with none of its values writable, the enum goes and the rest of the schema holds.
        schema = without(schema, "enum");
    }
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(alternatives)) {
        const keyword = schema.anyOf != null ? "anyOf" : "oneOf";
        if (alternatives.length === 0)
            throw invalid(`${path}.${keyword}`, `an empty ${keyword} matches nothing`);
        const siblings = branchSiblings.filter((name) => name in schema);
        const branches = siblings.length === 0 || branchesSayAll(siblings, alternatives);
        if (siblings.length > 0)
            strictness.refuse(unsupported(path, siblings[0]!, `'${siblings[0]}' next to '${keyword}' cannot be enforced by constrained decoding; repeat it inside each branch`),
                branches ? undefined : `${path}.${keyword}`);
        if (branches)
            return {oneOf: alternatives.map((alternative, index) => convert(alternative, `${path}.${keyword}[${index}]`, reading)), ...description};
        schema = without(schema, "anyOf", "oneOf");
    }

    const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : [inferType(schema)];
    if (types.length > 1)
        return {oneOf: types.map((type) => convert({...schema, type}, path, reading)), ...description};
    if (types[0] === "any") {
        // Leniently, any JSON value: these say something of one type only.
        for (const keyword of [...numericBounds, "pattern"].filter((bound) => schema[bound] !== undefined))
            strictness.refuse(unsupported(path, keyword, keyword === "pattern"
                ? "'pattern' needs 'type: \"string\"' to be enforced by constrained decoding"
                : `'${keyword}' needs 'type: "integer"' or 'type: "number"' to be enforced by constrained decoding`));
        return anyJson;
    }
    return convertTyped(schema, types[0], path, strictness, description, (subschema, subpath) => convert(subschema, subpath, reading));
}

function inferType(schema: SchemaObject): string {
    if ("properties" in schema || "additionalProperties" in schema || "required" in schema)
        return "object";
    if ("items" in schema || "prefixItems" in schema)
        return "array";
    return "any";
}

/** The definition a `$ref` names; leniently, null for one the grammar cannot follow (read as any value). */
function toDefRef(ref: string, path: string, {defNames, strictness}: Reading): string | null {
    const name = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref)?.[1];
    if (name != null && defNames.has(name))
        return `#/$defs/${name}`;
    strictness.refuse(unsupported(path, "$ref", `'$ref' must point to a definition of the root schema ('#/$defs/<name>'); '${ref}' does not`));
    return null;
}
