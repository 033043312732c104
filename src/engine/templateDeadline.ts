import {Environment, Interpreter} from "@huggingface/jinja";

/**
 * A time bound on every Jinja render in the process: chat templates come with the GGUF (a pulled
 * one brings its own) or from chatserve.json, and @huggingface/jinja (which node-llama-cpp's
 * JinjaTemplateChatWrapper renders with, on the main thread) will run a template loop for as
 * long as it goes; one held every other request for 16 s. So its interpreter is wrapped, once,
 * here: a render that has run for templateRenderMs stops with a TemplateDeadlineError at its next
 * step, and `range()` refuses to build lists longer than any template needs (range(10**9) would
 * allocate gigabytes in one call, before a single step). A worker per render would bound it too,
 * but costs a thread hop and a copy of the conversation on every request; this costs a counter.
 */

/** Real templates render a long agent conversation in tens of ms; a second is far past any of them. */
export const templateRenderMs = 1000;

/** Templates loop over messages, tools and their fields: thousands at most. */
export const maxRangeLength = 100_000;

/** Steps between looks at the clock: a step is microseconds, so a check per 1024 costs nothing and overshoots by little. */
const stepsPerCheck = 1024;

export class TemplateDeadlineError extends Error {}

type Patched = {run(program: unknown): unknown, evaluate(statement: unknown, environment: unknown): unknown};
type PatchedEnvironment = {set(name: string, value: unknown): unknown};

let deadline: number | null = null;
let steps = 0;

const interpreter = Interpreter.prototype as unknown as Patched;
const run = interpreter.run;
const evaluate = interpreter.evaluate;
interpreter.run = function (this: unknown, program: unknown) {
    const outer = deadline;
    deadline ??= performance.now() + templateRenderMs;
    try {
        return run.call(this, program);
    } finally {
        deadline = outer;
    }
};
interpreter.evaluate = function (this: unknown, statement: unknown, environment: unknown) {
    if (deadline != null && ++steps % stepsPerCheck === 0 && performance.now() > deadline)
        throw new TemplateDeadlineError(`the chat template did not finish within ${templateRenderMs} ms (a loop that does not end?)`);
    return evaluate.call(this, statement, environment);
};

const environment = Environment.prototype as unknown as PatchedEnvironment;
const set = environment.set;
environment.set = function (this: unknown, name: string, value: unknown) {
    return set.call(this, name, name === "range" && typeof value === "function" ? boundedRange(value as (...args: number[]) => number[]) : value);
};

function boundedRange(range: (...args: number[]) => number[]) {
    return (...args: number[]) => {
        const [start, stop, step = 1] = args.length === 1 ? [0, args[0]!] : args;
        const length = step === 0 ? 0 : Math.ceil((stop! - start!) / step);
        if (length > maxRangeLength)
            throw new TemplateDeadlineError(`the chat template asked for range() of ${length} numbers, more than the ${maxRangeLength} a template may`);
        return range(...args);
    };
}
