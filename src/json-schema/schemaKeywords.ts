import {invalid, isObject, unsupported, type SchemaObject} from "./schemaErrors.js";
import type {SchemaStrictness} from "./schemaStrictness.js";

/**
 * What constrainedSchema.ts keeps of a schema's keywords and values: those the grammar cannot
 * express are refused strictly and left out leniently; values it cannot write likewise.
 */

/** Validation keywords the grammar cannot express. */
const unenforceable = new Set([
    "patternProperties",
    "multipleOf", "uniqueItems", "contains", "minContains", "maxContains", "dependentRequired", "dependentSchemas",
    "dependencies", "if", "then", "else", "not", "allOf", "unevaluatedProperties", "unevaluatedItems",
    "contentEncoding", "contentMediaType", "contentSchema", "$dynamicRef", "$recursiveRef"
]);

/** The schema without the keywords the grammar cannot express (leniently; strictly, a 400 for the first). */
export function withoutUnenforceable(schema: SchemaObject, path: string, strictness: SchemaStrictness): SchemaObject {
    const found = Object.keys(schema).filter((keyword) => unenforceable.has(keyword));
    for (const keyword of found)
        strictness.refuse(unsupported(path, keyword, `the keyword '${keyword}' cannot be enforced by constrained decoding. Remove it, or validate it yourself after the reply`));
    return found.length === 0 ? schema : without(schema, ...found);
}

/**
 * Leniently, of alternatives beside keywords of their own, which side the grammar follows: the
 * branches when the siblings only repeat a type (`{"type": "object", "oneOf": [...objects]}`) and
 * every branch says what it is; otherwise the siblings, which then say what the value is
 * (`{"type": "object", "properties": ..., "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}`).
 */
export function branchesSayAll(siblings: readonly string[], alternatives: readonly unknown[]): boolean {
    return siblings.every((name) => name === "type") &&
        alternatives.every((branch) => branch === true || (isObject(branch) && ["type", "$ref", "enum", "const", "anyOf", "oneOf"].some((keyword) => keyword in branch)));
}

export function without(schema: SchemaObject, ...keywords: string[]): SchemaObject {
    return Object.fromEntries(Object.entries(schema).filter(([keyword]) => !keywords.includes(keyword)));
}

/** A `const` or `enum` value the grammar can write, as a list of one; leniently, none for one it cannot. */
export function literal(value: unknown, path: string, strictness: SchemaStrictness): Array<string | number | boolean | null> {
    // JSON's 1e400 parses to Infinity, which no reply can write (JSON.stringify makes it null).
    if (typeof value === "number" && !Number.isFinite(value))
        throw invalid(path, "a number too large to write in JSON can never match");
    if (value === null || ["string", "number", "boolean"].includes(typeof value))
        return [value as string | number | boolean | null];
    strictness.refuse(unsupported(path, null, "only strings, numbers, booleans and null can be listed"));
    return [];
}

/** What node-llama-cpp's grammar builder writes wrongly; JSON escapes it all. */
const unwritable = [
    // Control characters but tab, CR and LF go into the grammar unescaped: raw in a JSON string, or
    // (U+0000) taken by llama.cpp's parser for the grammar's end.
    {pattern: /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/, what: "a control character"},
    // No UTF-8 form: the reply would hold U+FFFD instead.
    {pattern: /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/, what: "an unpaired surrogate"}
];

/**
 * Text node-llama-cpp's grammar builder writes as it is: a property name, or a string of an enum
 * that mixes types. Leniently, null for text it cannot write, which is then left out.
 */
export function writableText(text: string, path: string, strictness: SchemaStrictness): string | null {
    const problem = unwritable.find(({pattern}) => pattern.test(text));
    if (problem == null)
        return text;
    strictness.refuse(unsupported(path, null, `${JSON.stringify(text)} holds ${problem.what}, which constrained decoding cannot write here`));
    return null;
}
