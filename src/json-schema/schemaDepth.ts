import type {JsonSchema} from "../engine/generationOptions.js";
import {maxJsonNesting} from "./jsonNesting.js";
import {unsupported, type SchemaObject} from "./schemaErrors.js";

/**
 * A 400 for a converted schema (constrainedSchema.ts) that nests deeper than `maxJsonNesting` levels
 * once its `$ref`s are followed.
 *
 * Why: the request body's own nesting is capped (jsonNesting.ts), but a chain of definitions, each
 * an object whose property refers to the next, nests as deep as it is long in a body that stays
 * flat. node-llama-cpp's grammar builder recurses through it: 1,000 such definitions held the event
 * loop for 230 ms, 10,000 overflowed the stack (a 500). A recursive schema (a tree whose node refers
 * to itself) is not deep: the grammar refers back to the rule, so a cycle counts once.
 */
export function refuseDeepSchemas(schema: JsonSchema, param: string): void {
    const depth = new NestingDepth(schema as SchemaObject, param);
    depth.below(withoutDefs(schema as SchemaObject), 0, param);
    for (const name of Object.keys(depth.defs))
        depth.viaRef(name, 0, param);
}

class NestingDepth {
    public readonly defs: Record<string, SchemaObject>;
    /** A definition's levels, counted from where it is referred to. */
    private readonly heights = new Map<string, number>();
    private readonly inProgress = new Set<string>();

    public constructor(root: SchemaObject, private readonly param: string) {
        this.defs = (root.$defs ?? {}) as Record<string, SchemaObject>;
    }

    /**
     * The deepest level `node` reaches, `level` being its own. The walk goes no deeper than the
     * limit, so it cannot overflow the stack itself.
     */
    public below(node: unknown, level: number, path: string): number {
        checked(level, path);
        if (typeof node !== "object" || node === null)
            return level;
        const ref = (node as SchemaObject).$ref;
        if (typeof ref === "string")
            return this.viaRef(ref.replace("#/$defs/", ""), level, path);
        let deepest = level;
        for (const [key, child] of Object.entries(node))
            deepest = Math.max(deepest, this.below(child, level + 1, `${path}.${key}`));
        return deepest;
    }

    public viaRef(name: string, level: number, path: string): number {
        const def = this.defs[name];
        // A reference back into the definitions being walked is a recursive schema: the grammar refers back to its rule.
        if (def == null || this.inProgress.has(name))
            return level;
        let height = this.heights.get(name);
        if (height == null) {
            this.inProgress.add(name);
            // Following a '$ref' is a level too: builders recurse through it, even to a definition that is only another '$ref'.
            height = this.below(def, level + 1, `${this.param}.$defs.${name}`) - level;
            this.inProgress.delete(name);
            this.heights.set(name, height);
        }
        return checked(level + height, path);
    }
}

function checked(level: number, path: string): number {
    if (level > maxJsonNesting)
        throw unsupported(path, null, `the schema nests more than ${maxJsonNesting} levels deep once its '$ref's are followed (each one a level); flatten it`);
    return level;
}

function withoutDefs({$defs: _defs, ...rest}: SchemaObject): SchemaObject {
    return rest;
}
