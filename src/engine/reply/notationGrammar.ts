import type {JsonSchema} from "../generationOptions.js";
import {gbnfClass, gbnfString} from "./gbnfText.js";
import {integerRangeGbnf} from "./integerRange.js";
import {numberRangeGbnf} from "./numberRange.js";
import {requiredProperties} from "./optionalProperties.js";
import {regexToGbnf} from "./patternGrammar.js";
import {textChoiceGbnf} from "./stringEnumTrie.js";
import {textUntilRules} from "./textUntil.js";
import {notationOf} from "./notationJson.js";

type Schema = Record<string, unknown>;

const integer = "\"-\"? (\"0\" | [1-9] [0-9]{0,15})";
const number = `${integer} ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})?`;
/** A key of an open object: what Gemma 4's parser reads as one (up to the colon), less what would make it ambiguous. */
const anyKey = "[^:,{}\\[\\]<>\"\\x00-\\x20]+";

/**
 * GBNF for a JSON Schema's values in Gemma 4's notation, the way its template writes a call's
 * arguments (format_argument): objects `{key:value,…}` with bare keys in the template's order
 * (Jinja's dictsort, case-folded), strings raw between `quote`s (`<|"|>`), numbers, booleans and
 * null as JSON. llama.cpp's Gemma 4 grammar reads any value there (its builder cannot write a
 * schema in that notation); this one holds the schema as the JSON grammars do: required and
 * optional properties, closed objects, items and their counts, enums, bounds, patterns, `$ref`.
 * Returns the rules and the expression of the root value; rule names start with `prefix`.
 */
export function notationGrammar(schema: JsonSchema, quote: string, prefix = "nv"): {rules: string, value: string} {
    const writer = new NotationRules(schema as Schema, quote, prefix);
    const value = writer.value(schema as Schema);
    return {rules: writer.rules.join("\n"), value};
}

class NotationRules {
    public readonly rules: string[] = [];
    private readonly defined = new Map<string, string>();
    private count = 0;

    public constructor(private readonly root: Schema, private readonly quote: string, private readonly prefix: string) {}

    /** A GBNF expression for the values of `schema`. */
    public value(schema: Schema | boolean | undefined): string {
        if (schema == null || typeof schema === "boolean" || Object.keys(schema).length === 0)
            return this.any();
        if (typeof schema.$ref === "string")
            return this.reference(schema.$ref);
        const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
        if (Array.isArray(branches))
            return `(${branches.map((branch) => this.value(branch)).join(" | ")})`;
        if ("const" in schema)
            return this.literals([schema.const]);
        if (Array.isArray(schema.enum))
            return this.literals(schema.enum);
        if (Array.isArray(schema.type))
            return `(${schema.type.map((type) => this.value({...schema, type})).join(" | ")})`;
        switch (schema.type) {
            case "string":
                return this.string(schema);
            case "integer":
                return typeof schema.minimum === "number" || typeof schema.maximum === "number" ? this.rule(integerRangeGbnf(
                    typeof schema.minimum === "number" ? schema.minimum : -Number.MAX_SAFE_INTEGER,
                    typeof schema.maximum === "number" ? schema.maximum : Number.MAX_SAFE_INTEGER
                )) : `(${integer})`;
            case "number":
                return this.number(schema);
            case "boolean":
                return "(\"true\" | \"false\")";
            case "null":
                return "\"null\"";
            case "array":
                return this.array(schema);
            case "object":
                return this.object(schema);
            default:
                return this.any();
        }
    }

    /** Exactly these values, in the notation (a string enum as a prefix tree: stringEnumTrie.ts says why). */
    private literals(values: readonly unknown[]): string {
        if (values.length > 0 && values.every((value) => typeof value === "string")) {
            const name = this.name();
            this.rules.push(`${name} ::= ${textChoiceGbnf(values as string[], name)}`);
            return `${gbnfString(this.quote)} ${name} ${gbnfString(this.quote)}`;
        }
        return `(${values.map((value) => gbnfString(notationOf(value, this.quote))).join(" | ")})`;
    }

    /** Raw text between the quotes, which cannot hold the quote itself (nor, with a length bound, its first character at all). */
    private string(schema: Schema): string {
        const quote = gbnfString(this.quote);
        if (typeof schema.pattern === "string") {
            try {
                const anchored = schema.pattern.startsWith("^") && schema.pattern.endsWith("$") ? schema.pattern : `[\\s\\S]*(?:${schema.pattern})[\\s\\S]*`;
                return `${quote} ${this.rule(regexToGbnf(anchored))} ${quote}`;
            } catch {
                // A pattern the grammar cannot write (constrainedSchema.ts has checked it for the JSON grammar): any text.
            }
        }
        const {minLength, maxLength} = schema as {minLength?: number, maxLength?: number};
        if (typeof minLength === "number" || typeof maxLength === "number")
            return `${quote} [^${gbnfClass([...this.quote][0]!)}]{${minLength ?? 0},${maxLength ?? ""}} ${quote}`;
        const name = this.name();
        this.rules.push(`${name} ::= ${name}-0`, textUntilRules(this.quote, `${name}-`, gbnfString, gbnfClass));
        return `${quote} ${name}`;
    }

    private number(schema: Schema): string {
        const bound = (inclusive: string, exclusive: string) => typeof schema[inclusive] === "number" ? {value: schema[inclusive] as number, inclusive: true}
            : typeof schema[exclusive] === "number" ? {value: schema[exclusive] as number, inclusive: false} : undefined;
        const low = bound("minimum", "exclusiveMinimum");
        const high = bound("maximum", "exclusiveMaximum");
        return low == null && high == null ? `(${number})` : this.rule(numberRangeGbnf(low, high));
    }

    /** `[a,b]`: the tuple's items first (prefixItems), then `items`, as many as minItems / maxItems allow. */
    private array(schema: Schema): string {
        const tuple = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]).map((item) => this.value(item)) : [];
        const rest = schema.items === false ? null : this.value(schema.items as Schema | undefined);
        const min = Math.max(0, (typeof schema.minItems === "number" ? schema.minItems : 0) - tuple.length);
        const max = typeof schema.maxItems === "number" ? schema.maxItems - tuple.length : null;
        const head = tuple.join(" \",\" ");
        if (rest == null || max === 0)
            return `"[" ${head} "]"`;
        const lead = tuple.length > 0 ? "\",\" " : "";
        // `min` further items at least, `max` at most: the first, then the others after commas.
        const others = `("," ${rest}){${Math.max(0, min - 1)},${max == null ? "" : max - 1}}`;
        const more = min > 0 ? `${lead}${rest} ${others}` : `(${lead}${rest} ${others})?`;
        return this.rule(`"[" ${head} ${more} "]"`);
    }

    /**
     * `{key:value,…}`, properties in the template's order, the optional ones skippable: rule
     * `first-i` writes properties i… with none before them, `after-i` the same after one (each
     * opening with a comma). An open object may end with further keys of its own.
     */
    private object(schema: Schema): string {
        const properties = (schema.properties ?? {}) as Record<string, Schema>;
        const names = Object.keys(properties).sort(dictOrder);
        const required = requiredProperties(schema);
        const additional = schema.additionalProperties ?? names.length === 0;
        const extra = additional === false ? null : `${anyKey} ":" ${this.value(additional === true ? undefined : additional as Schema)}`;
        const base = this.name();
        const first = (index: number) => `${base}-first-${index}`;
        const after = (index: number) => `${base}-after-${index}`;
        names.forEach((name, index) => {
            const pair = `${gbnfString(`${name}:`)} ${this.value(properties[name])}`;
            this.rules.push(required.has(name) ? `${first(index)} ::= ${pair} ${after(index + 1)}` : `${first(index)} ::= ${pair} ${after(index + 1)} | ${first(index + 1)}`);
            this.rules.push(`${after(index)} ::= ${required.has(name) ? "" : "("}"," ${pair}${required.has(name) ? "" : ")?"} ${after(index + 1)}`);
        });
        this.rules.push(`${first(names.length)} ::= ${extra == null ? "\"\"" : `(${extra} ("," ${extra})*)?`}`);
        this.rules.push(`${after(names.length)} ::= ${extra == null ? "\"\"" : `("," ${extra})*`}`);
        return this.rule(`"{" ${first(0)} "}"`);
    }

    /** Any value: what a schema without keywords allows. */
    private any(): string {
        return this.definedRule("any", (name) => {
            const key = anyKey;
            return `${this.string({type: "string"})} | ${number} | "true" | "false" | "null" | ` +
                `"{" (${key} ":" ${name} ("," ${key} ":" ${name})*)? "}" | "[" (${name} ("," ${name})*)? "]"`;
        });
    }

    /** A definition of the root's `$defs` (or `definitions`), one rule each, so a recursive one refers to itself. */
    private reference(ref: string): string {
        const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
        const defs = (match == null ? undefined : this.root[match[1]!]) as Record<string, Schema> | undefined;
        const def = match == null ? undefined : defs?.[match[2]!];
        if (ref === "#")
            return this.definedRule("root", () => this.value(this.root));
        return def == null ? this.any() : this.definedRule(`ref:${ref}`, () => this.value(def));
    }

    /** A named rule made once per key; its name is known before its body is written, so the body may refer to it. */
    private definedRule(key: string, body: (name: string) => string): string {
        let name = this.defined.get(key);
        if (name == null) {
            name = this.name();
            this.defined.set(key, name);
            this.rules.push(`${name} ::= ${body(name)}`);
        }
        return name;
    }

    private rule(body: string): string {
        const name = this.name();
        this.rules.push(`${name} ::= ${body}`);
        return name;
    }

    private name(): string {
        return `${this.prefix}-${this.count++}`;
    }
}

/** Jinja's dictsort: keys compared case-folded. */
function dictOrder(a: string, b: string): number {
    const [x, y] = [a.toLowerCase(), b.toLowerCase()];
    return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}
