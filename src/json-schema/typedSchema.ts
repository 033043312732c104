import type {JsonSchema} from "../engine/generationOptions.js";
import {refuseEmptyBounds} from "./schemaConsistency.js";
import {atLeast, integerBounds, numberBounds, numberKeyword, patternString} from "./schemaBounds.js";
import {asObject, invalid, type SchemaObject} from "./schemaErrors.js";
import {writableText} from "./schemaKeywords.js";
import type {SchemaStrictness} from "./schemaStrictness.js";
import {formatString} from "./stringFormats.js";

/** Converts a subschema found at `path` (constrainedSchema.ts's `convert`, with the reading of its root). */
export type ConvertSubschema = (input: unknown, path: string) => JsonSchema;

/**
 * A schema of one JSON type (object, array, string, integer, number, boolean, null) → what the grammar
 * is built from: the keywords of that type it can enforce, the rest refused or left out through
 * `strictness`. Its subschemas go back through `convert` (constrainedSchema.ts's, handed in because
 * the two recurse into each other and a file never imports one that imports it).
 */
export function convertTyped(
    input: SchemaObject, type: unknown, path: string, strictness: SchemaStrictness, description: {description?: string}, convert: ConvertSubschema
): JsonSchema {
    let schema = input;
    switch (type) {
        case "object": {
            const properties = asObject(schema.properties, `${path}.properties`);
            const required = Array.isArray(schema.required) ? schema.required as string[] : [];
            const missing = required.filter((name) => !Object.hasOwn(properties, name));
            if (missing.length > 0)
                strictness.refuse(invalid(`${path}.required`, `the required property '${missing[0]}' is not listed in 'properties'`));
            // Leniently, as JSON Schema reads it: present, with any value.
            const listed = {...properties, ...Object.fromEntries(missing.map((name) => [name, true]))};
            // The grammar cannot count how many optional properties it has written.
            schema = atLeast(schema, "maxProperties", Object.keys(listed).length, path, strictness);
            const additional = schema.additionalProperties;
            const closed = additional === false || (additional === undefined && Object.keys(properties).length > 0);
            refuseEmptyBounds(schema, path, closed ? Object.keys(listed).length : null);
            const written = Object.keys(listed).filter((name) => writableText(name, `${path}.properties`, strictness) != null);
            // The others may be left out, as JSON Schema says (engine/reply/optionalProperties.ts).
            const requiredWritten = written.filter((name) => required.includes(name));
            return {
                type: "object",
                properties: Object.fromEntries(written.map((name) => [name, convert(listed[name], `${path}.properties.${name}`)])),
                ...(requiredWritten.length > 0 ? {required: requiredWritten} : {}),
                // With no properties listed, `{"type": "object"}` means any object, not only `{}`.
                additionalProperties: additional === undefined ? Object.keys(properties).length === 0 : additional === false ? false : convert(additional, `${path}.additionalProperties`),
                ...numberKeyword(schema, "minProperties", path, strictness), ...numberKeyword(schema, "maxProperties", path, strictness), ...description
            } as JsonSchema;
        }
        case "array":
            schema = atLeast(schema, "maxItems", Array.isArray(schema.prefixItems) ? schema.prefixItems.length : 0, path, strictness);
            refuseEmptyBounds(schema, path);
            return {
                type: "array",
                ...(schema.items !== undefined ? {items: convert(schema.items, `${path}.items`)} : {}),
                ...(Array.isArray(schema.prefixItems) ? {prefixItems: schema.prefixItems.map((item, index) => convert(item, `${path}.prefixItems[${index}]`))} : {}),
                ...numberKeyword(schema, "minItems", path, strictness), ...numberKeyword(schema, "maxItems", path, strictness), ...description
            } as JsonSchema;
        case "string":
            refuseEmptyBounds(schema, path);
            // Leniently, a pattern that cannot be enforced gives way to the format, and a format to a plain string.
            return (schema.pattern !== undefined ? patternString(schema, path, description, strictness) : null)
                ?? (schema.format !== undefined ? formatString(schema, path, description, strictness) : null)
                ?? {type: "string", ...numberKeyword(schema, "minLength", path, strictness), ...numberKeyword(schema, "maxLength", path, strictness), ...description};
        case "integer":
            return {type, ...integerBounds(schema, path), ...description};
        case "number":
            return {type, ...numberBounds(schema, path, strictness), ...description} as JsonSchema;
        case "boolean": case "null":
            return {type, ...description};
        default:
            throw invalid(`${path}.type`, `unknown type '${String(type)}'`);
    }
}
