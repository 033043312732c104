import {invalid, type SchemaObject} from "./schemaErrors.js";

/**
 * Schemas that are malformed, or that no value can satisfy: a 400, where the grammar builder would
 * go by one keyword and hand back JSON that breaks another (`minLength` 5 with `maxLength` 2 gave
 * five characters; `type: "integer"` with `enum: ["a"]` gave "a").
 */

/** JSON Schema's types, and draft 3's "any". */
const typeNames = ["string", "number", "integer", "boolean", "null", "object", "array", "any"];

/** `type` and `required` of the shapes JSON Schema gives them. */
export function refuseMalformedKeywords(schema: SchemaObject, path: string): void {
    const {type, required} = schema;
    if (type !== undefined && !(typeof type === "string" || (Array.isArray(type) && type.length > 0 && type.every((name) => typeof name === "string"))))
        throw invalid(`${path}.type`, "'type' must be a type's name or a non-empty list of them");
    const unknown = [type].flat().find((name) => name !== undefined && !typeNames.includes(name as string));
    if (unknown !== undefined)
        throw invalid(`${path}.type`, `unknown type '${String(unknown)}'`);
    if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === "string")))
        throw invalid(`${path}.required`, "'required' must be a list of property names");
}

/**
 * Lower bounds above their upper bounds; and more properties asked for than an object may hold
 * (`mostProperties`: how many a closed object lists; null when it takes others).
 */
export function refuseEmptyBounds(schema: SchemaObject, path: string, mostProperties: number | null = null): void {
    for (const [low, high, kind] of [["minLength", "maxLength", "string"], ["minItems", "maxItems", "array"], ["minProperties", "maxProperties", "object"]]) {
        const [lowest, highest] = [schema[low!], schema[high!]];
        if (typeof lowest === "number" && typeof highest === "number" && lowest > highest)
            throw invalid(path, `its bounds leave no ${kind}: '${low}' ${lowest} is above '${high}' ${highest}`);
    }
    if (mostProperties != null && typeof schema.minProperties === "number" && schema.minProperties > mostProperties)
        throw invalid(path, `'minProperties' ${schema.minProperties} is more than the ${mostProperties} properties it lists, ` +
            "and an object that lists its properties takes no others unless 'additionalProperties' says so");
}

/**
 * The `enum` (or `const`) values that are also of the schema's `type`, as JSON Schema reads the two
 * together; none is a 400.
 */
export function literalsOfType(values: readonly unknown[], type: unknown, path: string): unknown[] {
    if (type === undefined)
        return [...values];
    const types = Array.isArray(type) ? type : [type];
    const kept = values.filter((value) => types.some((name) => isOfType(value, name)));
    if (kept.length === 0)
        throw invalid(path, `no value it lists is of type ${types.map((name) => `'${String(name)}'`).join(" or ")}: it matches nothing`);
    return kept;
}

function isOfType(value: unknown, type: unknown): boolean {
    if (type === "any")
        return true;
    if (value === null)
        return type === "null";
    if (type === "integer")
        return Number.isInteger(value);
    if (Array.isArray(value))
        return type === "array";
    return typeof value === type;
}
