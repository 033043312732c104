/**
 * An object's properties that are not in `required` may be left out, as JSON Schema says and as
 * llama.cpp's json-schema-to-grammar writes them. node-llama-cpp's grammar builder writes every
 * listed property, always (its types say `required` "is always set to all keys"), so an agent's tool
 * got an invented value for each optional parameter (Codex's `sandbox_permissions`, whose other
 * value asks to run unsandboxed). Its object rule is rewritten here: each property of such an
 * object is listed under a marker key (`chatserve-key-<nonce>-<object>-<index>:<name>`), so that in
 * the built grammar each key's value rule can be found, and the object's sequence of properties is
 * swapped for one where the optional ones may be skipped. Values keep node-llama-cpp's rules.
 */

type Schema = Record<string, unknown>;

/** What the rewrite needs of one object: its marker keys' prefix, and which of its properties (in order) are required. */
export type OptionalPropertiesObject = {keyPrefix: string, ruleName: string, required: readonly boolean[]};

/**
 * The listed properties an object of `schema` must hold: those in `required` (none without it). Or
 * every one when `minProperties` asks for more than those: a grammar cannot count which optional
 * ones it wrote, and writing them all satisfies the bound (a closed object listing fewer is a 400).
 */
export function requiredProperties(schema: Schema): Set<string> {
    const listed = Object.keys(isObject(schema.properties) ? schema.properties : {});
    const required = new Set(Array.isArray(schema.required) ? listed.filter((name) => (schema.required as unknown[]).includes(name)) : []);
    return typeof schema.minProperties === "number" && schema.minProperties > required.size ? new Set(listed) : required;
}

/**
 * `node` (an object schema whose property values `markValue` has already marked) with its
 * properties under marker keys, when some of them are optional; null when all are required, which
 * node-llama-cpp writes as it is.
 */
export function markOptionalProperties(node: Schema, nonce: string, index: number): {node: Schema, object: OptionalPropertiesObject} | null {
    if (node.type !== "object" || !isObject(node.properties))
        return null;
    const names = Object.keys(node.properties);
    const required = requiredProperties(node);
    if (names.every((name) => required.has(name)))
        return null;
    const keyPrefix = `chatserve-key-${nonce}-${index}-`;
    const properties = Object.fromEntries(Object.entries(node.properties).map(([name, value], at) => [`${keyPrefix}${at}:${name}`, value]));
    return {
        node: {...node, properties},
        object: {keyPrefix, ruleName: `chatserve-object-${nonce}-${index}`, required: names.map((name) => required.has(name))}
    };
}

/**
 * The grammar with each marked object's sequence of properties rewritten. node-llama-cpp writes an
 * object as `"{" ws key ":" [ ]? value (comma-ws key ":" [ ]? value)* extra ws-outer "}"`, every
 * value a rule's name, `extra` (other keys, where `additionalProperties` lets them in) as
 * `( comma-ws rule )*`, `?` or `{0,n}`. An object's text sits on one rule's line (inline in the
 * root's when it is the root). A text of another shape is an error, which the schema's caller
 * answers as a grammar that cannot be built; the unit tests pin node-llama-cpp's shapes.
 */
export function withOptionalProperties(grammar: string, objects: readonly OptionalPropertiesObject[]): string {
    const helpers: string[] = [];
    let text = grammar;
    for (const object of objects) {
        let occurrence = 0;
        text = text.replace(objectPattern(object), (...groups: string[]) => {
            const [, inner, ...rest] = groups;
            const items = object.required.map((required, at) => ({required, key: rest[at * 3]!, value: rest[at * 3 + 1]!}));
            const [extraText, outer] = [rest[object.required.length * 3 - 1]!, rest[object.required.length * 3]!];
            const {body, rules} = objectBody(`${object.ruleName}-${occurrence++}`, inner!, items, extraOf(extraText));
            helpers.push(...rules);
            return `"{" ${inner} ${body} ${outer} "}"`;
        });
        if (occurrence === 0)
            throw new Error(`node-llama-cpp's object rule for ${object.ruleName} was not found in the grammar`);
    }
    return [text, ...helpers].join("\n");
}

/**
 * The regular expression of a marked object's text: groups are the inner whitespace rule, then per
 * property its key's escaped name, its value's rule and the separator after it (the last one's: the
 * extra keys' text, possibly empty), then the outer whitespace rule.
 */
function objectPattern({keyPrefix, required}: OptionalPropertiesObject): RegExp {
    const item = (at: number) => `${escape(`"\\"${keyPrefix}${at}:`)}(.*?)${escape(`\\"" ":" [ ]? `)}(\\S+)`;
    const items = required.map((_, at) => item(at)).join("( \\S+) ");
    return new RegExp(`${escape("\"{\"")} (\\S+) ${items}(.*?) (\\S+) ${escape("\"}\"")}`, "g");
}

type Item = {required: boolean, key: string, value: string};
type Extra = {rule: string, quantifier: string} | null;

/** Other keys as node-llama-cpp writes them after the listed ones (each with its comma), or none. */
function extraOf(text: string): Extra {
    if (text.trim() === "")
        return null;
    const match = /^ \( \S+ (\S+) \)(\*|\?|\{0,\d+\})$/.exec(text);
    if (match == null)
        throw new Error(`unexpected text after an object's properties in node-llama-cpp's grammar: ${text}`);
    return {rule: match[1]!, quantifier: match[2]!};
}

/**
 * The object's properties in order, each optional one skippable, a comma before each but the first
 * written: until a required one, the first written may be any optional one before it (or, with no
 * required one, none at all). Rule `rest-<i>` holds what may follow once a property before `i` is
 * written, so that the alternatives share it rather than repeat it.
 */
function objectBody(name: string, whitespace: string, items: readonly Item[], extra: Extra): {body: string, rules: string[]} {
    // node-llama-cpp's comma rule at this depth is "," then the same whitespace as after "{".
    const comma = `"," ${whitespace}`;
    const pair = ({key, value}: Item) => `"\\"${key}\\"" ":" [ ]? ${value}`;
    const rest: string[] = [];
    rest[items.length] = extra == null ? "" : `( ${comma} ${extra.rule} )${extra.quantifier}`;
    for (let at = items.length - 1; at >= 0; at--) {
        const written = `${comma} ${pair(items[at]!)}`;
        rest[at] = `${items[at]!.required ? written : `( ${written} )?`}${rest[at + 1] === "" ? "" : ` ${name}-rest-${at + 1}`}`;
    }
    const rules = new Map<number, string>();
    const after = (at: number): string => {
        if (rest[at] == null || rest[at] === "")
            return "";
        if (!rules.has(at)) {
            rules.set(at, `${name}-rest-${at} ::= ${rest[at]}`);
            after(at + 1);
        }
        return ` ${name}-rest-${at}`;
    };
    const firstRequired = items.findIndex((item) => item.required);
    const leading = firstRequired < 0 ? items.length : firstRequired + 1;
    const alternatives = items.slice(0, leading).map((item, at) => `${pair(item)}${after(at + 1)}`);
    if (firstRequired >= 0)
        return {body: alternatives.length === 1 ? alternatives[0]! : `( ${alternatives.join(" | ")} )`, rules: [...rules.values()]};
    // No property required: the object may hold only other keys, the first without a comma, or nothing.
    if (extra != null)
        alternatives.push(`${extra.rule}${extraAfterFirst(comma, extra)}`);
    return {body: `( ${alternatives.join(" | ")} )?`, rules: [...rules.values()]};
}

/** Other keys after a first one, within node-llama-cpp's bound on how many there may be. */
function extraAfterFirst(comma: string, {rule, quantifier}: NonNullable<Extra>): string {
    const most = quantifier === "*" ? null : quantifier === "?" ? 1 : Number(/\{0,(\d+)\}/.exec(quantifier)![1]);
    if (most === 1)
        return "";
    return ` ( ${comma} ${rule} )${most == null ? "*" : `{0,${most - 1}}`}`;
}

function escape(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function isObject(value: unknown): value is Schema {
    return value != null && typeof value === "object" && !Array.isArray(value);
}
