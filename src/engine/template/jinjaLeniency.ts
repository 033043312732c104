import {Environment, Interpreter} from "@huggingface/jinja";

/**
 * Where @huggingface/jinja is stricter than the Jinja that llama.cpp renders templates with
 * (common/jinja/runtime.cpp), official templates that llama-server serves fail here. Hermes 2
 * Pro's and Hermes 3's `tool_use` templates loop over `tools` unchecked and trim a value that may
 * be missing. So, as llama.cpp does: a loop over an undefined value runs no times (its `else`
 * block runs), and a string filter applied to an undefined value applies to "". Patched once, here.
 */

type RuntimeValue = {type: string};
type PatchedInterpreter = {
    evaluate(statement: unknown, environment: unknown): RuntimeValue,
    evaluateFor(node: {iterable: unknown}, environment: unknown): RuntimeValue,
    applyFilter(operand: RuntimeValue, filterNode: {type: string, value?: string}, environment: unknown): RuntimeValue
};

const stringFilters = new Set(["trim", "upper", "lower", "capitalize", "title", "length", "string"]);
/** Runtime values made the way the engine makes them (a fresh scope each: a name is declared once per scope). */
const emptyList = () => new Environment().set("list", []) as RuntimeValue;
const emptyString = () => new Environment().set("string", "") as RuntimeValue;

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
    const value = evaluate.call(this, statement, environment);
    return value.type === "UndefinedValue" && typeof statement === "object" && statement != null && iterables.has(statement) ? emptyList() : value;
};

interpreter.applyFilter = function (this: PatchedInterpreter, operand, filterNode, environment) {
    const undefinedString = operand.type === "UndefinedValue" && filterNode.type === "Identifier" && stringFilters.has(filterNode.value ?? "");
    return applyFilter.call(this, undefinedString ? emptyString() : operand, filterNode, environment);
};
