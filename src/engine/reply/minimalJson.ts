import type {JsonSchema} from "../types.js";

type Schema = Record<string, unknown>;

/** Past this depth a recursive `$ref` counts as a fixed cost instead of being followed. */
const maxDepth = 16;

/**
 * The length in characters of the shortest JSON text matching `schema` (the grammar's compact
 * form: no optional whitespace). A token is at least one character, so this bounds the tokens a
 * constrained reply needs to reach its end from the start.
 */
export function minimalJsonLength(schema: JsonSchema): number {
    const root = schema as Schema;
    return measure(root, (root.$defs ?? {}) as Record<string, Schema>, 0);
}

function measure(schema: Schema, defs: Record<string, Schema>, depth: number): number {
    if (depth > maxDepth)
        return 16;
    const next = (child: unknown) => measure(child as Schema, {...defs, ...(schema.$defs as Record<string, Schema> | undefined)}, depth + 1);

    if (typeof schema.$ref === "string") {
        const def = defs[schema.$ref.replace("#/$defs/", "")];
        return def == null ? 4 : next(def);
    }
    if ("const" in schema)
        return JSON.stringify(schema.const).length;
    if (Array.isArray(schema.enum))
        return Math.min(...schema.enum.map((value) => JSON.stringify(value).length));
    if (Array.isArray(schema.oneOf))
        return Math.min(...schema.oneOf.map(next));

    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    return Math.min(...types.map((type) => {
        switch (type) {
            case "object": {
                const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
                const fields = properties.map(([name, value]) => JSON.stringify(name).length + 1 + next(value));
                return 2 + fields.reduce((sum, length) => sum + length, 0) + Math.max(0, fields.length - 1);
            }
            case "array": {
                const prefix = ((schema.prefixItems ?? []) as Schema[]).map(next);
                const extra = Math.max(0, ((schema.minItems as number | undefined) ?? 0) - prefix.length);
                const items = [...prefix, ...Array.from({length: extra}, () => schema.items == null ? 1 : next(schema.items))];
                return 2 + items.reduce((sum, length) => sum + length, 0) + Math.max(0, items.length - 1);
            }
            case "string":
                return schema.format != null ? 25 : 2 + ((schema.minLength as number | undefined) ?? 0);
            case "boolean":
                return 4;
            case "null":
                return 4;
            default:
                return 1;
        }
    }));
}
