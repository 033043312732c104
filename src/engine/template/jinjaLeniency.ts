import {Environment, Interpreter} from "@huggingface/jinja";

/**
 * Where @huggingface/jinja is stricter than the Jinja that llama.cpp renders templates with
 * (common/jinja/runtime.cpp), official templates that llama-server serves fail here. Hermes 2
 * Pro's and Hermes 3's `tool_use` templates loop over `tools` unchecked and trim a value that may
 * be missing; Command R+'s adds a string to a missing one; Kimi K2's queues call ids with a list's
 * `append` and `pop`. So, as llama.cpp does: a loop over an undefined value runs no times (its
 * `else` block runs), a string filter applied to an undefined value applies to "", a string plus
 * an undefined or null value is the string, a list filter on nothing filters an empty list, a
 * tuple literal unpacks in a loop, a mapping's `string` is its JSON, lists have `min` and `max`
 * and Python's append, pop, extend and insert, and strings Python's `format` (Hunyuan 3's), and a
 * mapping may have integer keys (Seed-OSS's `{512: 128, …}`), looked up and compared as integers.
 * Patched once, here.
 */

type RuntimeValue = {type: string};
type PatchedInterpreter = {
    evaluate(statement: unknown, environment: unknown): RuntimeValue,
    evaluateMemberExpression(node: {object: unknown, property: unknown, computed: boolean}, environment: unknown): RuntimeValue,
    evaluateBinaryExpression(node: {operator: {value: string}, left: unknown, right: unknown}, environment: unknown): RuntimeValue,
    evaluateFor(node: {iterable: unknown}, environment: unknown): RuntimeValue,
    applyFilter(operand: RuntimeValue, filterNode: {type: string, value?: string}, environment: unknown): RuntimeValue
};

const stringFilters = new Set(["trim", "upper", "lower", "capitalize", "title", "length", "string"]);
const listFilters = new Set(["selectattr", "rejectattr", "select", "reject", "map", "list", "join", "first", "last", "unique", "sort"]);
/** Runtime values made the way the engine makes them (a fresh scope each: a name is declared once per scope). */
const emptyList = () => new Environment().set("list", []) as RuntimeValue;
const emptyString = () => new Environment().set("string", "") as RuntimeValue;
const stringValue = (text: string) => new Environment().set("string", text) as RuntimeValue;
const nullValue = () => new Environment().set("none", null) as RuntimeValue;
const integerValue = (value: number) => new Environment().set("integer", value) as RuntimeValue;

const interpreter = Interpreter.prototype as unknown as PatchedInterpreter;
const evaluate = interpreter.evaluate;
const evaluateFor = interpreter.evaluateFor;
const applyFilter = interpreter.applyFilter;
/** The iterables of the loops being run: an undefined one is read as an empty list. */
const iterables = new WeakSet<object>();

interpreter.evaluateFor = function (this: PatchedInterpreter, node, environment) {
    const iterable = node.iterable as {type?: string, lhs?: unknown};
    iterables.add((iterable.type === "SelectExpression" ? iterable.lhs : iterable) as object);
    return evaluateFor.call(this, node, environment);
};

interpreter.evaluate = function (this: PatchedInterpreter, statement, environment) {
    const literal = statement as {type?: string, value?: Map<unknown, unknown>} | undefined;
    if (literal?.type === "ObjectLiteral" && [...literal.value!.keys()].some((key) => (key as {type?: string}).type === "IntegerLiteral"))
        return integerKeyed(this, literal!.value!, environment);
    const value = evaluate.call(this, statement, environment) as RuntimeValue & {value?: unknown};
    // An integer key comes out of a mapping's items as a string value holding a number: an integer again.
    if (value.type === "StringValue" && typeof value.value === "number")
        return integerValue(value.value);
    // A tuple literal is a list to unpack in a loop (`for field, name in [("maximum", "Maximum")]`,
    // Functionary's), which @huggingface/jinja refuses for its own tuple type.
    if (value.type === "TupleValue")
        (value as {type: string}).type = "ArrayValue";
    return value.type === "UndefinedValue" && typeof statement === "object" && statement != null && iterables.has(statement) ? emptyList() : value;
};

/** A mapping literal with integer keys, kept as numbers (the engine's own mappings take strings only). */
function integerKeyed(self: PatchedInterpreter, entries: Map<unknown, unknown>, environment: unknown): RuntimeValue {
    const mapping = new Map<unknown, RuntimeValue>();
    for (const [key, value] of entries)
        mapping.set((self.evaluate(key, environment) as RuntimeValue & {value: unknown}).value, self.evaluate(value, environment));
    const result = new Environment().set("mapping", {}) as RuntimeValue & {value: Map<unknown, RuntimeValue>, items(): RuntimeValue, _builtins?: Map<string, RuntimeValue>};
    result.value = mapping;
    // Its items with integer keys, in insertion order, or sorted by key (`dictsort`, numerically).
    const pairs = (entries: Array<[unknown, RuntimeValue]>) => new ListValue(entries.map(([key, value]) =>
        new ListValue([typeof key === "number" ? integerValue(key) : stringValue(String(key)), value])));
    const byKey = ([a]: [unknown, RuntimeValue], [b]: [unknown, RuntimeValue]) => typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b));
    result.items = () => pairs([...mapping.entries()]);
    result._builtins = new Map([["dictsort", new FunctionValue(() => pairs([...mapping.entries()].sort(byKey)))], ["items", new FunctionValue(() => result.items())]]);
    return result;
}

const member = interpreter.evaluateMemberExpression;
interpreter.evaluateMemberExpression = function (this: PatchedInterpreter, node, environment) {
    // A mapping named by a variable, indexed by an integer literal (`gears[16384]`): both read once,
    // without side effects, before the engine reads them again.
    const [object, key] = [node.object, node.property] as Array<{type?: string, value?: unknown}>;
    if (node.computed && object!.type === "Identifier" && key!.type === "IntegerLiteral") {
        const mapping = this.evaluate(object, environment) as RuntimeValue & {value: unknown};
        if (mapping.type === "ObjectValue")
            return (mapping.value as Map<unknown, RuntimeValue>).get(key!.value) ?? new Environment().set("undefined", undefined) as RuntimeValue;
    }
    return member.call(this, node, environment);
};

interpreter.applyFilter = function (this: PatchedInterpreter, operand, filterNode, environment) {
    const name = filterNode.type === "Identifier" ? filterNode.value ?? "" : (filterNode as {callee?: {value?: string}}).callee?.value ?? "";
    const missing = operand.type === "UndefinedValue" || operand.type === "NullValue";
    if (operand.type === "UndefinedValue" && filterNode.type === "Identifier" && stringFilters.has(name))
        return applyFilter.call(this, emptyString(), filterNode, environment);
    // A list filter over nothing filters an empty list (Functionary v3.1's `tools | selectattr(…)` without tools).
    if (missing && listFilters.has(name))
        return applyFilter.call(this, emptyList(), filterNode, environment);
    // A mapping or list as a string is its JSON (Apriel's `tool | string`), as llama.cpp writes it.
    if (name === "string" && (operand.type === "ObjectValue" || operand.type === "ArrayValue"))
        return applyFilter.call(this, operand, {type: "Identifier", value: "tojson"}, environment);
    // The smallest or largest item of a list (MiniCPM5's `indices | min`).
    if ((name === "min" || name === "max") && operand.type === "ArrayValue" && filterNode.type === "Identifier") {
        const items = (operand as RuntimeList).value;
        const pick = (a: RuntimeValue, b: RuntimeValue) => {
            const [x, y] = [(a as unknown as {value: number | string}).value, (b as unknown as {value: number | string}).value];
            return (name === "min" ? y < x : y > x) ? b : a;
        };
        return items.length === 0 ? new Environment().set("undefined", undefined) as RuntimeValue : items.reduce(pick);
    }
    return applyFilter.call(this, operand, filterNode, environment);
};

const binary = interpreter.evaluateBinaryExpression;
interpreter.evaluateBinaryExpression = function (this: PatchedInterpreter, node, environment) {
    try {
        return binary.call(this, node, environment);
    } catch (error) {
        if (node.operator.value !== "+" && node.operator.value !== "~")
            throw error;
        const left = this.evaluate(node.left, environment) as RuntimeValue & {value: unknown};
        const right = this.evaluate(node.right, environment) as RuntimeValue & {value: unknown};
        const missing = (value: RuntimeValue) => value.type === "UndefinedValue" || value.type === "NullValue";
        if ((missing(left) && right.type === "StringValue") || (missing(right) && left.type === "StringValue"))
            return stringValue(`${missing(left) ? "" : left.value as string}${missing(right) ? "" : right.value as string}`);
        throw error;
    }
};

/** Python's list methods that templates call, on every list value. */
type RuntimeList = RuntimeValue & {value: RuntimeValue[]};
const sampleList = new Environment().set("list", []) as object;
const FunctionValue = (new Environment().set("function", () => null) as object).constructor as new (call: (args: RuntimeValue[]) => RuntimeValue) => RuntimeValue;
const listPrototype = Object.getPrototypeOf(sampleList) as object;
const ListValue = sampleList.constructor as new (items: RuntimeValue[]) => RuntimeValue;
const ownBuiltins = Object.getOwnPropertyDescriptor(listPrototype, "builtins")!.get!;
Object.defineProperty(listPrototype, "builtins", {
    configurable: true,
    get(this: RuntimeList) {
        const builtins = new Map(ownBuiltins.call(this) as Map<string, RuntimeValue>);
        const list = this.value;
        const at = (args: RuntimeValue[], fallback: number) => {
            const index = args[0]?.type === "IntegerValue" ? (args[0] as RuntimeValue & {value: number}).value : fallback;
            return index < 0 ? list.length + index : index;
        };
        builtins.set("append", new FunctionValue((args) => (list.push(args[0] ?? nullValue()), nullValue())));
        builtins.set("extend", new FunctionValue((args) => (list.push(...(args[0] as RuntimeList | undefined)?.value ?? []), nullValue())));
        builtins.set("insert", new FunctionValue((args) => (list.splice(at(args, 0), 0, args[1] ?? nullValue()), nullValue())));
        builtins.set("pop", new FunctionValue((args) => {
            const index = at(args, -1);
            if (index < 0 || index >= list.length)
                throw new Error("pop index out of range");
            return list.splice(index, 1)[0]!;
        }));
        builtins.set("length", integerValue(list.length));
        return builtins;
    }
});

/** Python's `str.format` with positional fields (`'<｜hy_eos{}｜>'.format(HYTK)`), `{{` and `}}` for braces. */
type RuntimeString = RuntimeValue & {value: string};
const stringPrototype = Object.getPrototypeOf(new Environment().set("string", "") as object) as object;
const ownStringBuiltins = Object.getOwnPropertyDescriptor(stringPrototype, "builtins")!.get!;
Object.defineProperty(stringPrototype, "builtins", {
    configurable: true,
    get(this: RuntimeString) {
        const builtins = ownStringBuiltins.call(this) as Map<string, RuntimeValue>;
        if (!builtins.has("format")) {
            const pattern = this.value;
            builtins.set("format", new FunctionValue((args) => {
                let next = 0;
                const text = pattern.replace(/\{\{|\}\}|\{(\d*)\}/g, (field, index: string | undefined) => {
                    if (field === "{{" || field === "}}")
                        return field[0]!;
                    const value = args[index == null || index === "" ? next++ : Number(index)] as (RuntimeValue & {value?: unknown}) | undefined;
                    return value == null || value.type === "UndefinedValue" ? "" : typeof value.value === "object" ? JSON.stringify(value.value) : String(value.value);
                });
                return stringValue(text);
            }));
        }
        return builtins;
    }
});
