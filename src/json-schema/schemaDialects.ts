import {asObject, invalid, isObject, unsupported, type SchemaObject} from "./schemaErrors.js";
import type {SchemaStrictness} from "./schemaStrictness.js";

/**
 * What clients write that means something the converter (constrainedSchema.ts) reads in another
 * form: draft 4's exclusive flags, zod's safe-integer bounds, draft-07 tuples, zod's record `propertyNames`.
 */
export function fromClientDialects(schema: SchemaObject, path: string, strictness: SchemaStrictness): SchemaObject {
    return withFalseSchemasRead(withDraft7Tuple(withPropertyNamesResolved(withoutSafeIntegerBounds(withDraft4FlagsRead(schema)), path, strictness)), path, strictness);
}

/**
 * `false` (nothing allowed) where it says something the grammar can do without it: `items: false`
 * closes a tuple (zod 4's `z.tuple` writes it after `prefixItems`), and a property whose schema is
 * `false` may not appear, so it is left out of an object that takes no other keys (chatserve's
 * default for listed properties). On a required property it cannot be satisfied: a 400. Next to
 * `additionalProperties` that lets other keys in it cannot be enforced (leniently, it is not listed).
 */
function withFalseSchemasRead(schema: SchemaObject, path: string, strictness: SchemaStrictness): SchemaObject {
    let result = schema;
    if (result.items === false) {
        const {items: _, ...rest} = result;
        const length = Array.isArray(rest.prefixItems) ? rest.prefixItems.length : 0;
        result = {...rest, maxItems: typeof rest.maxItems === "number" ? Math.min(rest.maxItems, length) : length};
    }
    if (isObject(result.properties) && Object.values(result.properties).includes(false)) {
        const forbidden = Object.keys(result.properties).filter((name) => (result.properties as SchemaObject)[name] === false);
        const required = Array.isArray(result.required) ? result.required : [];
        const needed = forbidden.find((name) => required.includes(name));
        if (needed != null)
            throw invalid(`${path}.properties.${needed}`, `the property '${needed}' is required, but its schema is false: no value can satisfy it`);
        const others = result.additionalProperties !== undefined && result.additionalProperties !== false;
        if (others)
            strictness.refuse(unsupported(`${path}.properties.${forbidden[0]}`, null,
                "a property whose schema is false next to 'additionalProperties' that allows other keys cannot be enforced by constrained decoding"));
        result = {...result, properties: Object.fromEntries(Object.entries(result.properties).filter(([, value]) => value !== false)), ...(others ? {} : {additionalProperties: false})};
    }
    return result;
}

/**
 * zod's `.int()` (and so the Vercel AI SDK's tools) writes minimum and maximum ±(2^53 − 1): they
 * say "a JavaScript-safe integer", which every integer the grammar writes is. Dropped together, on
 * numbers too; a tighter bound is enforced on integers and refused on numbers.
 */
function withoutSafeIntegerBounds(schema: SchemaObject): SchemaObject {
    const {minimum, maximum, ...rest} = schema;
    const lowest = minimum === undefined || (typeof minimum === "number" && minimum <= Number.MIN_SAFE_INTEGER && schema.exclusiveMinimum !== true);
    const highest = maximum === undefined || (typeof maximum === "number" && maximum >= Number.MAX_SAFE_INTEGER && schema.exclusiveMaximum !== true);
    return lowest && highest && (minimum !== undefined || maximum !== undefined) ? rest : schema;
}

/** Draft 4's `exclusiveMinimum` / `exclusiveMaximum` flags: `false`, or a flag without its bound, says nothing and goes. */
function withDraft4FlagsRead(schema: SchemaObject): SchemaObject {
    const result = {...schema};
    for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const)
        if (typeof result[flag] === "boolean" && (result[flag] === false || result[bound] === undefined))
            delete result[flag];
    return result;
}

/** draft-07 tuples (`items` as a list, `additionalItems`), which the AI SDK sends for `z.tuple`, in today's words. */
function withDraft7Tuple(schema: SchemaObject): SchemaObject {
    if (!Array.isArray(schema.items))
        return schema;
    const {items, additionalItems, ...rest} = schema;
    return {...rest, prefixItems: items, ...(additionalItems === false ? {maxItems: items.length} : additionalItems === undefined ? {} : {items: additionalItems})};
}

/**
 * `propertyNames` as zod's `z.record` writes it: `{type: "string"}` says nothing (every key is a
 * string) and is dropped; an `enum` of names becomes those properties, each with the record's value
 * schema. Anything else cannot be enforced (leniently, it goes: any key).
 */
function withPropertyNamesResolved(schema: SchemaObject, path: string, strictness: SchemaStrictness): SchemaObject {
    const {propertyNames, ...rest} = schema;
    if (propertyNames === undefined)
        return schema;
    const names = isObject(propertyNames) ? propertyNames : propertyNames === true ? {} : null;
    const {type, enum: listed, ...other} = names ?? {};
    if (names == null || (type !== undefined && type !== "string") || Object.keys(other).length > 0 ||
        (listed !== undefined && !(Array.isArray(listed) && listed.every((name) => typeof name === "string")))) {
        strictness.refuse(unsupported(path, "propertyNames", "only 'propertyNames' of type string, or an enum of names, can be enforced by constrained decoding"));
        return rest;
    }
    if (listed === undefined)
        return rest;
    const value = rest.additionalProperties === undefined || rest.additionalProperties === false ? true : rest.additionalProperties;
    const properties = Object.fromEntries((listed as string[]).map((name) => [name, value]));
    return {...rest, properties: {...properties, ...asObject(rest.properties, `${path}.properties`)}, additionalProperties: false};
}
