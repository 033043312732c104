import type {JsonSchema} from "../generationOptions.js";
import {requiredProperties} from "./optionalProperties.js";

type Schema = Record<string, unknown>;

/** What a definition that refers back to itself counts for where it recurs. */
const recursionCost = 16;

/**
 * The length in characters of the shortest JSON text matching `schema` (the grammar's compact
 * form: no optional whitespace). A token is at least one character, so this bounds the tokens a
 * constrained reply needs to reach its end from the start.
 *
 * Each definition is measured once, however often it is referred to: schemas come from clients,
 * and following every `$ref` afresh costs N^depth for a chain of `oneOf`s of N refs (1 KB of
 * schema held the event loop for minutes).
 */
export function minimalJsonLength(schema: JsonSchema): number {
    return new MinimalLength(((schema as Schema).$defs ?? {}) as Record<string, Schema>).of(schema as Schema);
}

class MinimalLength {
    private readonly measured = new Map<string, number>();
    private readonly inProgress = new Set<string>();

    public constructor(private readonly defs: Record<string, Schema>) {}

    public of(schema: Schema): number {
        if (typeof schema.$ref === "string")
            return this.definition(schema.$ref.replace("#/$defs/", ""));
        if ("const" in schema)
            return JSON.stringify(schema.const).length;
        if (Array.isArray(schema.enum))
            return Math.min(...schema.enum.map((value) => JSON.stringify(value).length));
        if (Array.isArray(schema.oneOf))
            return Math.min(...schema.oneOf.map((option: Schema) => this.of(option)));
        const types = Array.isArray(schema.type) ? schema.type : [schema.type];
        return Math.min(...types.map((type) => this.ofType(schema, type)));
    }

    private definition(name: string): number {
        const known = this.measured.get(name);
        if (known != null)
            return known;
        const def = this.defs[name];
        if (def == null)
            return 4;
        if (this.inProgress.has(name))
            return recursionCost;
        this.inProgress.add(name);
        const length = this.of(def);
        this.inProgress.delete(name);
        this.measured.set(name, length);
        return length;
    }

    private ofType(schema: Schema, type: unknown): number {
        switch (type) {
            case "object": {
                // Optional properties can be left out (closing early included); required ones must be written.
                const required = requiredProperties(schema);
                const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>).filter(([name]) => required.has(name));
                const fields = properties.map(([name, value]) => JSON.stringify(name).length + 1 + this.of(value));
                return enclosed(fields.reduce((sum, length) => sum + length, 0), fields.length);
            }
            case "array": {
                const prefix = ((schema.prefixItems ?? []) as Schema[]).map((item) => this.of(item));
                const extra = Math.max(0, ((schema.minItems as number | undefined) ?? 0) - prefix.length);
                const itemLength = extra === 0 ? 0 : schema.items == null ? 1 : this.of(schema.items as Schema);
                return enclosed(prefix.reduce((sum, length) => sum + length, 0) + extra * itemLength, prefix.length + extra);
            }
            case "string":
                return schema.format != null ? 25 : 2 + ((schema.minLength as number | undefined) ?? 0);
            case "boolean":
            case "null":
                return 4;
            case "integer":
            case "number":
                return boundedNumberLength(schema);
            default:
                return 1;
        }
    }
}

/** 0 where the bounds allow it; else about the bound nearest zero, a fraction's digits included. */
function boundedNumberLength(schema: Schema): number {
    const [low, high] = [schema.minimum ?? schema.exclusiveMinimum, schema.maximum ?? schema.exclusiveMaximum] as Array<number | undefined>;
    if ((low == null || low <= 0) && (high == null || high >= 0))
        return schema.exclusiveMinimum === 0 || schema.exclusiveMaximum === 0 ? 3 : 1;
    return String(low != null && low > 0 ? low : high).length + 2;
}

/** Brackets around `count` entries of `length` characters in all, with commas between them. */
function enclosed(length: number, count: number): number {
    return 2 + length + Math.max(0, count - 1);
}
