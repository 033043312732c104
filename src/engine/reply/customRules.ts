import {randomBytes} from "node:crypto";
import {integerRangeGbnf} from "./integerRange.js";
import {numberRangeGbnf} from "./numberRange.js";
import {markOptionalProperties, type OptionalPropertiesObject} from "./optionalProperties.js";
import {patternToGbnf} from "./patternGrammar.js";
import {stringEnumGbnf} from "./stringEnumTrie.js";

/**
 * What node-llama-cpp's schema grammar builder cannot express, chatserve writes itself: a string's
 * `pattern`, an integer's `minimum` / `maximum` (as constrainedSchema.ts leaves them: inclusive
 * integers) and a number's bounds (whole numbers, each inclusive or exclusive). And what it writes
 * too slowly: an enum of strings, as a prefix tree (stringEnumTrie.ts says why). Each such node is
 * stood in for by a marker constant, and the marker's literal in the built grammar is then swapped
 * for a rule of ours. Objects with optional properties are marked too, and their rule rewritten
 * (optionalProperties.ts).
 */
type CustomRule = {
    name: string,
    /** The rule's body, possibly followed by lines defining helper rules named `name-…`. */
    gbnf: string,
    quoted: boolean
};

const numericBounds = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

export function markCustomRules(schema: unknown): {schema: unknown, rules: CustomRule[], objects: OptionalPropertiesObject[]} {
    const rules: CustomRule[] = [];
    const objects: OptionalPropertiesObject[] = [];
    // A fresh nonce per schema: no const, enum value or property name a client writes can equal a marker.
    const nonce = randomBytes(8).toString("hex");
    // Equal nodes share one rule: by their GBNF, or for an enum (whose helper rules are named after it) by its values.
    const names = new Map<string, string>();
    const namedMarker = (key: string, quoted: boolean, gbnfOf: (name: string) => string) => {
        let name = names.get(key);
        if (name == null) {
            name = marker(nonce, rules.length);
            names.set(key, name);
            rules.push({name, gbnf: gbnfOf(name), quoted});
        }
        return {const: name};
    };
    const markerFor = ({gbnf, quoted}: {gbnf: string, quoted: boolean}) => namedMarker(`${quoted}:${gbnf}`, quoted, () => gbnf);
    const mark = (value: unknown): unknown => {
        if (Array.isArray(value))
            return value.map(mark);
        if (value == null || typeof value !== "object")
            return value;
        const node = value as Record<string, unknown>;
        if (typeof node.const === "string" || (Array.isArray(node.enum) && node.enum.length > 0 && node.enum.every((item) => typeof item === "string"))) {
            // A string const too: node-llama-cpp writes its control characters raw, which no JSON parser reads.
            const values = typeof node.const === "string" ? [node.const] : node.enum as string[];
            return namedMarker(`enum:${JSON.stringify(values)}`, false, (name) => stringEnumGbnf(values, name));
        }
        if (node.type === "string" && typeof node.pattern === "string")
            return markerFor({gbnf: patternToGbnf(node.pattern), quoted: true});
        if (node.type === "integer" && (typeof node.minimum === "number" || typeof node.maximum === "number"))
            return markerFor({gbnf: integerRangeGbnf(
                typeof node.minimum === "number" ? node.minimum : -Number.MAX_SAFE_INTEGER,
                typeof node.maximum === "number" ? node.maximum : Number.MAX_SAFE_INTEGER
            ), quoted: false});
        if (node.type === "number" && numericBounds.some((keyword) => typeof node[keyword] === "number"))
            return markerFor({gbnf: numberRangeGbnf(
                typeof node.minimum === "number" ? {value: node.minimum, inclusive: true}
                    : typeof node.exclusiveMinimum === "number" ? {value: node.exclusiveMinimum, inclusive: false} : undefined,
                typeof node.maximum === "number" ? {value: node.maximum, inclusive: true}
                    : typeof node.exclusiveMaximum === "number" ? {value: node.exclusiveMaximum, inclusive: false} : undefined
            ), quoted: false});
        const marked = Object.fromEntries(Object.entries(node).map(([key, item]) => [key, mark(item)]));
        const optional = markOptionalProperties(marked, nonce, objects.length);
        if (optional == null)
            return marked;
        objects.push(optional.object);
        return optional.node;
    };
    return {schema: mark(schema), rules, objects};
}

/** The grammar with each marker's literal (`"\"chatserve-rule-…-0\""`) replaced by its rule, quoted as a JSON string or bare. */
export function withCustomRules(grammar: string, rules: readonly CustomRule[]): string {
    return rules.reduce((text, {name, gbnf, quoted}) => {
        const use = quoted ? `"\\"" ${name} "\\""` : name;
        return `${text.replaceAll(`"\\"${name}\\""`, use)}\n${name} ::= ${gbnf}`;
    }, grammar);
}

function marker(nonce: string, index: number): string {
    return `chatserve-rule-${nonce}-${index}`;
}
