import type {JsonSchema} from "../engine/generationOptions.js";
import {unsupported, type SchemaObject} from "./schemaErrors.js";

/**
 * The most ways a value may begin: alternatives (`oneOf`, and `anyOf` read as it) nested in one
 * another through `$ref`s, before any character is written. llama.cpp's grammar keeps one parse
 * stack per way and node-llama-cpp's grammar builder walks each: a 2 KB schema of eight levels of
 * ten refs each held the event loop for seconds, every stream with it. Real schemas use dozens.
 */
const maxWaysToBegin = 10_000;

/** A 400 for a converted schema (constrainedSchema.ts) whose nested alternatives multiply past the limit. */
export function refuseExplodingAlternatives(schema: JsonSchema, param: string): void {
    new AlternativesCount(schema as SchemaObject, param).check();
}

class AlternativesCount {
    private readonly defs: Record<string, SchemaObject>;
    private readonly ofDefinition = new Map<string, number>();
    private readonly inProgress = new Set<string>();

    public constructor(private readonly root: SchemaObject, private readonly param: string) {
        this.defs = (root.$defs ?? {}) as Record<string, SchemaObject>;
    }

    /** Every subschema, each visited once (a definition where it is defined, not where it is referred to). */
    public check(): void {
        this.visit(this.root, this.param);
        for (const [name, def] of Object.entries(this.defs))
            this.visit(def, `${this.param}.$defs.${name}`);
    }

    private visit(schema: SchemaObject, path: string): void {
        this.waysToBegin(schema, path);
        const children: Array<[unknown, string]> = [
            ...Object.entries((schema.properties ?? {}) as SchemaObject).map(([name, child]): [unknown, string] => [child, `${path}.properties.${name}`]),
            ...((schema.oneOf ?? []) as unknown[]).map((child, index): [unknown, string] => [child, `${path}.oneOf[${index}]`]),
            ...((schema.prefixItems ?? []) as unknown[]).map((child, index): [unknown, string] => [child, `${path}.prefixItems[${index}]`]),
            [schema.items, `${path}.items`],
            [schema.additionalProperties, `${path}.additionalProperties`]
        ];
        for (const [child, childPath] of children)
            if (typeof child === "object" && child !== null)
                this.visit(child as SchemaObject, childPath);
    }

    private waysToBegin(schema: SchemaObject, path: string): number {
        if (typeof schema.$ref === "string")
            return this.definition(schema.$ref.replace("#/$defs/", ""));
        if (!Array.isArray(schema.oneOf))
            return 1;
        const ways = (schema.oneOf as SchemaObject[]).reduce((sum, option, index) => sum + this.waysToBegin(option, `${path}.oneOf[${index}]`), 0);
        if (ways > maxWaysToBegin)
            throw unsupported(path, null, `its anyOf / oneOf alternatives, nested in one another through '$ref', give ${ways} ways for the ` +
                `value to begin, more than the ${maxWaysToBegin} constrained decoding can follow; flatten them`);
        return ways;
    }

    private definition(name: string): number {
        const known = this.ofDefinition.get(name);
        if (known != null)
            return known;
        const def = this.defs[name];
        // A definition that begins with itself never begins (a grammar could not hold it either).
        if (def == null || this.inProgress.has(name))
            return 1;
        this.inProgress.add(name);
        const ways = this.waysToBegin(def, `${this.param}.$defs.${name}`);
        this.inProgress.delete(name);
        this.ofDefinition.set(name, ways);
        return ways;
    }
}
