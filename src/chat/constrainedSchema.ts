import type {JsonSchema} from "../engine/types.js";
import {fromClientDialects} from "./schemaDialects.js";
import {refuseExplodingAlternatives} from "./schemaAlternatives.js";
import {refuseDeepSchemas} from "./schemaDepth.js";
import {literalsOfType, refuseEmptyBounds, refuseMalformedKeywords} from "./schemaConsistency.js";
import {atLeast, integerBounds, numberBounds, numberKeyword, numericBounds, patternString} from "./schemaBounds.js";
import {asObject, invalid, isObject, unsupported, type SchemaObject} from "./schemaErrors.js";
import {formatString} from "./stringFormats.js";

/**
 * A client's JSON Schema → the schema the grammar is built from, or a 400 naming the first keyword
 * that constrained decoding cannot enforce (a looser grammar in silence would hand back JSON the
 * client's own validator rejects).
 *
 * Rewrites what the grammar builder does not read but can enforce the same way: `anyOf` (as
 * `oneOf`: the output matches one branch), type lists, `nullable`, `definitions`, and schemas
 * without `type` (inferred from their keywords; none at all means any JSON value). Strings'
 * `pattern`, numbers' bounds and enums of strings pass through to rules of chatserve's own (engine/reply/customRules.ts);
 * other dialects (draft-07 tuples, zod's records) are read first by schemaDialects.ts.
 */

/** Validation keywords the grammar cannot express. */
const unenforceable = new Set([
    "patternProperties",
    "multipleOf", "uniqueItems", "contains", "minContains", "maxContains", "dependentRequired", "dependentSchemas",
    "dependencies", "if", "then", "else", "not", "allOf", "unevaluatedProperties", "unevaluatedItems",
    "contentEncoding", "contentMediaType", "contentSchema", "$dynamicRef", "$recursiveRef"
]);
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
const anyJson: JsonSchema = {
    oneOf: [{type: ["string", "number", "boolean", "null"]}, {type: "object", additionalProperties: true}, {type: "array"}]
};

export function toConstrainedSchema(schema: unknown, param: string): JsonSchema {
    if (!isObject(schema))
        throw invalid(param, "a schema must be a JSON object");
    const defs = {...asObject(schema.definitions, `${param}.definitions`), ...asObject(schema.$defs, `${param}.$defs`)};
    const defNames = new Set(Object.keys(defs));
    const converted = convert(schema, param, defNames);
    const convertedDefs = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, convert(def, `${param}.$defs.${name}`, defNames)]));
    const result = Object.keys(defs).length === 0 ? converted : {...converted, $defs: convertedDefs} as JsonSchema;
    // Depth first: counting alternatives recurses through '$ref's as well.
    refuseDeepSchemas(result, param);
    refuseExplodingAlternatives(result, param);
    return result;
}

function convert(input: unknown, path: string, defNames: ReadonlySet<string>): JsonSchema {
    if (input === true)
        return anyJson;
    if (!isObject(input))
        throw invalid(path, input === false
            ? "the schema false matches nothing here (it can close a tuple as 'items', or forbid a property)"
            : "a schema must be a JSON object or true");
    const schema = fromClientDialects(input, path);
    for (const keyword of Object.keys(schema))
        if (unenforceable.has(keyword))
            throw unsupported(path, keyword, `the keyword '${keyword}' cannot be enforced by constrained decoding. Remove it, or validate it yourself after the reply`);
    if (schema.nullable === true) {
        const {nullable: _, ...rest} = schema;
        return {oneOf: [convert(rest, path, defNames), {type: "null"}]};
    }

    refuseMalformedKeywords(schema, path);
    const description = typeof schema.description === "string" ? {description: schema.description} : {};
    if (typeof schema.$ref === "string") {
        const sibling = refSiblings.find((name) => name in schema);
        if (sibling != null)
            throw unsupported(path, sibling, `'${sibling}' next to '$ref' cannot be enforced by constrained decoding; put it inside the definition`);
        return {$ref: toDefRef(schema.$ref, path, defNames), ...description} as JsonSchema;
    }
    if ("const" in schema)
        return {const: literalsOfType([literal(schema.const, `${path}.const`)], schema.type, `${path}.const`)[0], ...description} as JsonSchema;
    if (Array.isArray(schema.enum)) {
        if (schema.enum.length === 0)
            throw invalid(`${path}.enum`, "an empty enum matches nothing");
        const values = literalsOfType(schema.enum.map((value, index) => literal(value, `${path}.enum[${index}]`)), schema.type, `${path}.enum`);
        // Strings alone are written by chatserve's own rule (stringEnumTrie.ts); mixed with other values, by node-llama-cpp's.
        if (values.some((value) => typeof value !== "string"))
            values.forEach((value) => typeof value === "string" && writableText(value, `${path}.enum`));
        return {enum: values, ...description} as JsonSchema;
    }
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(alternatives)) {
        const keyword = schema.anyOf != null ? "anyOf" : "oneOf";
        if (alternatives.length === 0)
            throw invalid(`${path}.${keyword}`, `an empty ${keyword} matches nothing`);
        const sibling = branchSiblings.find((name) => name in schema);
        if (sibling != null)
            throw unsupported(path, sibling, `'${sibling}' next to '${keyword}' cannot be enforced by constrained decoding; repeat it inside each branch`);
        return {oneOf: alternatives.map((alternative, index) => convert(alternative, `${path}.${keyword}[${index}]`, defNames)), ...description};
    }

    const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : [inferType(schema)];
    if (types.length > 1)
        return {oneOf: types.map((type) => convert({...schema, type}, path, defNames)), ...description};
    return convertTyped(schema, types[0], path, defNames, description);
}

function convertTyped(schema: SchemaObject, type: unknown, path: string, defNames: ReadonlySet<string>, description: {description?: string}): JsonSchema {
    switch (type) {
        case "any":
            for (const keyword of numericBounds.filter((bound) => bound in schema))
                throw unsupported(path, keyword, `'${keyword}' needs 'type: "integer"' or 'type: "number"' to be enforced by constrained decoding`);
            if (schema.pattern !== undefined)
                throw unsupported(path, "pattern", "'pattern' needs 'type: \"string\"' to be enforced by constrained decoding");
            return anyJson;
        case "object": {
            const properties = asObject(schema.properties, `${path}.properties`);
            const required = Array.isArray(schema.required) ? schema.required : [];
            const missing = required.find((name) => typeof name !== "string" || !(name in properties));
            if (missing !== undefined)
                throw invalid(`${path}.required`, `the required property '${String(missing)}' is not listed in 'properties'`);
            // Every listed property is always written, so fewer allowed than listed cannot hold.
            atLeast(schema, "maxProperties", Object.keys(properties).length, path);
            const additional = schema.additionalProperties;
            const closed = additional === false || (additional === undefined && Object.keys(properties).length > 0);
            refuseEmptyBounds(schema, path, closed ? Object.keys(properties).length : null);
            return {
                type: "object",
                properties: Object.fromEntries(Object.entries(properties).map(([name, value]) =>
                    [writableText(name, `${path}.properties`), convert(value, `${path}.properties.${name}`, defNames)])),
                // With no properties listed, `{"type": "object"}` means any object, not only `{}`.
                additionalProperties: additional === undefined ? Object.keys(properties).length === 0 : additional === false ? false : convert(additional, `${path}.additionalProperties`, defNames),
                ...numberKeyword(schema, "minProperties", path), ...numberKeyword(schema, "maxProperties", path), ...description
            } as JsonSchema;
        }
        case "array":
            atLeast(schema, "maxItems", Array.isArray(schema.prefixItems) ? schema.prefixItems.length : 0, path);
            refuseEmptyBounds(schema, path);
            return {
                type: "array",
                ...(schema.items !== undefined ? {items: convert(schema.items, `${path}.items`, defNames)} : {}),
                ...(Array.isArray(schema.prefixItems) ? {prefixItems: schema.prefixItems.map((item, index) => convert(item, `${path}.prefixItems[${index}]`, defNames))} : {}),
                ...numberKeyword(schema, "minItems", path), ...numberKeyword(schema, "maxItems", path), ...description
            } as JsonSchema;
        case "string":
            refuseEmptyBounds(schema, path);
            if (schema.pattern !== undefined)
                return patternString(schema, path, description);
            if (schema.format !== undefined)
                return formatString(schema, path, description);
            return {type: "string", ...numberKeyword(schema, "minLength", path), ...numberKeyword(schema, "maxLength", path), ...description};
        case "integer":
            return {type, ...integerBounds(schema, path), ...description};
        case "number":
            return {type, ...numberBounds(schema, path), ...description} as JsonSchema;
        case "boolean": case "null":
            return {type, ...description};
        default:
            throw invalid(`${path}.type`, `unknown type '${String(type)}'`);
    }
}

function inferType(schema: SchemaObject): string {
    if ("properties" in schema || "additionalProperties" in schema || "required" in schema)
        return "object";
    if ("items" in schema || "prefixItems" in schema)
        return "array";
    return "any";
}

function toDefRef(ref: string, path: string, defNames: ReadonlySet<string>): string {
    const name = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref)?.[1];
    if (name == null || !defNames.has(name))
        throw unsupported(path, "$ref", `'$ref' must point to a definition of the root schema ('#/$defs/<name>'); '${ref}' does not`);
    return `#/$defs/${name}`;
}

function literal(value: unknown, path: string): string | number | boolean | null {
    // JSON's 1e400 parses to Infinity, which no reply can write (JSON.stringify makes it null).
    if (typeof value === "number" && !Number.isFinite(value))
        throw invalid(path, "a number too large to write in JSON can never match");
    if (value === null || ["string", "number", "boolean"].includes(typeof value))
        return value as string | number | boolean | null;
    throw unsupported(path, null, "only strings, numbers, booleans and null can be listed");
}

/** What node-llama-cpp's grammar builder writes wrongly; JSON escapes it all. */
const unwritable = [
    // Control characters but tab, CR and LF go into the grammar unescaped: raw in a JSON string, or
    // (U+0000) taken by llama.cpp's parser for the grammar's end.
    {pattern: /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/, what: "a control character"},
    // No UTF-8 form: the reply would hold U+FFFD instead.
    {pattern: /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/, what: "an unpaired surrogate"}
];

/** Text node-llama-cpp's grammar builder writes as it is: a property name, or a string of an enum that mixes types. */
function writableText(text: string, path: string): string {
    const problem = unwritable.find(({pattern}) => pattern.test(text));
    if (problem != null)
        throw unsupported(path, null, `${JSON.stringify(text)} holds ${problem.what}, which constrained decoding cannot write here`);
    return text;
}
