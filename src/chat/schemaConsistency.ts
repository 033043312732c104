import {invalid, type SchemaObject} from "./schemaErrors.js";

/**
 * Schemas that are malformed, or that no value can satisfy: a 400, where the grammar builder would
 * go by one keyword and hand back JSON that breaks another (`minLength` 5 with `maxLength` 2 gave
 * five characters; `type: "integer"` with `enum: ["a"]` gave "a").
 */

const jsonTypes = ["string", "number", "integer", "boolean", "null", "object", "array"];

/** `type` and `required` of the shapes JSON Schema gives them. */
export function refuseMalformedKeywords(schema: SchemaObject, path: string): void {
    const {type, required} = schema;
    if (type !== undefined && !(typeof type === "string" || (Array.isArray(type) && type.length > 0 && type.every((name) => typeof name === "string"))))
        throw invalid(`${path}.type`, "'type' must be a type's name or a non-empty list of them");
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
        throw invalid(path, `'minProperties' ${schema.minProperties} is more than the ${mostProperties} properties it allows`);
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
    if (typeof type !== "string" || !jsonTypes.includes(type))
        return false;
    if (value === null)
        return type === "null";
    if (type === "integer")
        return Number.isInteger(value);
    if (Array.isArray(value))
        return type === "array";
    return typeof value === type;
}
