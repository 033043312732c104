import type {JinjaChatTemplate} from "./jinjaChatTemplate.js";
import {indexCounting, indexDigitAt, type CallIndexText} from "./callIndex.js";
import {sharedEnd, sharedEnds} from "./sharedEnds.js";
import type {TemplateMessage} from "./templateMessage.js";

/**
 * A tool call's syntax as the model's own template writes one, worked out from the template
 * itself, the way llama.cpp's differential analysis (common/chat-diff-analyzer.cpp) finds it: an
 * assistant turn is rendered without a call, with one and with two, and what the calls add is
 * taken apart around the function's name and its JSON arguments. What the template writes is what
 * the model was trained to write, so the forced opening and the parser follow the family's own
 * markup: Hermes' and Qwen's `<tool_call>`, Llama 3's `{"name": …, "parameters": …}`, Granite's
 * `<|tool_call|>[…]`, DeepSeek's `<｜tool▁calls▁begin｜>`, Functionary's `<function=…>`, Command R's
 * `<|START_ACTION|>`, Kimi K2's sections.
 *
 * Null where the template writes no call, writes each argument on its own (Qwen3-Coder's
 * `<parameter=…>`, GLM's `<arg_key>`), or where it cannot be taken apart; node-llama-cpp's reading
 * of the template is used there.
 */
export type CallSyntaxText = {
    sectionPrefix: string, prefix: string, paramsPrefix: string, suffix: string, sectionSuffix: string,
    /** Null: the template writes one call per message (or refuses two). */
    betweenCalls: string | null,
    /** The generation prompt ends with the call's prefix (Functionary's `>>>`): the reply begins with its recipient. */
    opensReply?: boolean,
    /** The params prefix holds the call's index (Kimi K2's `:0`), counted as callIndex.ts says. */
    callIndex?: CallIndexText
};

const first = {name: "chatserve_probe_first", args: {chatserve_arg: "chatserve value 1"}};
const second = {name: "chatserve_probe_second", args: {chatserve_arg: "chatserve value 2"}};

/** Tokenizes with special tokens read as tokens, and spells tokens back: the diff is taken over tokens, so it never splits a marker. */
export type TemplateTokenizer = {tokenize(text: string): readonly number[], detokenize(tokens: readonly number[]): string};

const derived = new WeakMap<JinjaChatTemplate, CallSyntaxText | null>();

/** The template's call syntax, worked out once per template. */
export function templateCallSyntax(template: JinjaChatTemplate, tokenizer: TemplateTokenizer): CallSyntaxText | null {
    if (!derived.has(template)) {
        const syntax = deriveCallSyntax(template, tokenizer);
        derived.set(template, syntax == null ? null : {...syntax, opensReply: opensReply(template, syntax)});
    }
    return derived.get(template)!;
}

export function deriveCallSyntax(template: JinjaChatTemplate, tokenizer: TemplateTokenizer): CallSyntaxText | null {
    const assistant = (calls: ReadonlyArray<typeof first>): TemplateMessage => ({role: "assistant", content: "", ...(calls.length === 0 ? {} : {
        tool_calls: calls.map((call, index) => ({type: "function" as const, function: {name: call.name, arguments: JSON.stringify(call.args)}, id: `call0000${index + 1}`}))
    })});
    const withCalls = (calls: ReadonlyArray<typeof first>): TemplateMessage[] => [{role: "user", content: "chatserve probe question"}, assistant(calls)];
    const render = (messages: TemplateMessage[]): string | null => {
        try {
            return template.render({messages, thinking: true}, {continueLast: true});
        } catch {
            return null;
        }
    };
    // Templates that refuse an assistant message with neither text nor calls (Ministral 3's) are
    // compared with the question's generation prompt instead, and the turn's end is taken off.
    const none = render(withCalls([])) ?? generationPrompt(template);
    const one = render(withCalls([first]));
    if (none == null || one == null)
        return null;
    const single = callsText(tokenizer, none, one, template.turnEnd);
    const parts = single == null ? null : splitCall(single, first);
    if (parts == null)
        return null;
    const pair = render(withCalls([first, second]));
    const double = pair == null ? null : callsText(tokenizer, none, pair, template.turnEnd);
    const between = double == null ? null : betweenText(double, parts, second);
    if (between == null)
        return {sectionPrefix: "", prefix: parts.before, paramsPrefix: parts.paramsPrefix, suffix: parts.after, sectionSuffix: "", betweenCalls: null};
    // `between` is one call's suffix, a separator and the next call's prefix; what the first call
    // alone has beyond those opens and closes the section. Compared token by token, so that two
    // markers ending alike (`<｜tool▁call▁end｜>`, `<｜tool▁calls▁begin｜>`) are not split.
    const prefix = tokenSuffix(tokenizer, parts.before, between);
    const suffix = tokenPrefix(tokenizer, parts.after, between.slice(0, between.length - prefix.length));
    // A call index in the params prefix (Kimi K2's `:0`, `:1`): how the template counts is read
    // from a later reply's call, after a call and its result.
    const at = indexDigitAt(parts.paramsPrefix, paramsOf(double ?? "", second) ?? "");
    const later = at == null ? null : render([...withCalls([first]), {role: "tool", content: "chatserve probe result", tool_call_id: "call00001"}, assistant([second])]);
    const counts = at == null ? null : indexCounting(at, later == null ? null : paramsOf(later, second));
    return {
        sectionPrefix: parts.before.slice(0, parts.before.length - prefix.length), prefix, paramsPrefix: parts.paramsPrefix,
        suffix, sectionSuffix: parts.after.slice(suffix.length), betweenCalls: between.slice(suffix.length, between.length - prefix.length),
        ...(at == null || counts == null ? {} : {callIndex: {at, counts, idHead: prefix.slice(prefix.lastIndexOf(">") + 1).trimStart()}})
    };
}

/** The text between `call`'s name and its arguments in `text`, where it is written once. */
function paramsOf(text: string, call: typeof second): string | null {
    const name = text.indexOf(call.name);
    const args = name < 0 ? null : jsonObjectAfter(text, name + call.name.length, call.args);
    return args == null ? null : text.slice(name + call.name.length, args.start);
}

function opensReply(template: JinjaChatTemplate, syntax: CallSyntaxText): boolean {
    const prefix = syntax.prefix.trim();
    return syntax.sectionPrefix === "" && prefix !== "" && generationPrompt(template)?.trimEnd().endsWith(prefix) === true;
}

export function generationPrompt(template: JinjaChatTemplate): string | null {
    try {
        return template.render({messages: [{role: "user", content: "chatserve probe question"}], thinking: true});
    } catch {
        return null;
    }
}

/** What `withCalls` adds to `without`, token for token, trimmed at its start (a reply of calls begins with them) and without the turn's end. */
function callsText(tokenizer: TemplateTokenizer, without: string, withCalls: string, turnEnd: string): string | null {
    const b = tokenizer.tokenize(withCalls);
    const {start, end} = sharedEnds(tokenizer.tokenize(without), b);
    let added = tokenizer.detokenize(b.slice(start, b.length - end)).trimStart();
    if (turnEnd !== "" && added.trimEnd().endsWith(turnEnd))
        added = added.trimEnd().slice(0, -turnEnd.length);
    return added === "" ? null : added;
}

type CallParts = {before: string, paramsPrefix: string, after: string};

/** A call's text around its name and its arguments, where they are one JSON object equal to the call's. */
function splitCall(text: string, call: typeof first): CallParts | null {
    const name = text.indexOf(call.name);
    const args = name < 0 ? null : jsonObjectAfter(text, name + call.name.length, call.args);
    if (args == null)
        return null;
    return {before: text.slice(0, name), paramsPrefix: text.slice(name + call.name.length, args.start), after: text.slice(args.end)};
}

/** The text between the first call's arguments and the second call's name. */
function betweenText(text: string, parts: CallParts, call: typeof second): string | null {
    const firstArgs = jsonObjectAfter(text, text.indexOf(first.name) + first.name.length, first.args);
    const secondName = text.indexOf(call.name);
    if (firstArgs == null || secondName < firstArgs.end || jsonObjectAfter(text, secondName + call.name.length, call.args) == null)
        return null;
    const between = text.slice(firstArgs.end, secondName);
    return between.endsWith(commonSuffix(parts.before, between)) ? between : null;
}

/** The first JSON object from `from` on (balanced braces, strings skipped) whose value equals `expected`. */
function jsonObjectAfter(text: string, from: number, expected: unknown): {start: number, end: number} | null {
    for (let start = text.indexOf("{", from); start >= 0; start = text.indexOf("{", start + 1)) {
        const end = balancedEnd(text, start);
        if (end < 0)
            continue;
        try {
            if (JSON.stringify(JSON.parse(text.slice(start, end))) === JSON.stringify(expected))
                return {start, end};
        } catch {
            // Not JSON: look further.
        }
    }
    return null;
}

function balancedEnd(text: string, start: number): number {
    let depth = 0;
    let inString = false;
    for (let at = start; at < text.length; at++) {
        const char = text[at];
        if (inString) {
            if (char === "\\")
                at++;
            else if (char === "\"")
                inString = false;
        } else if (char === "\"")
            inString = true;
        else if (char === "{")
            depth++;
        else if (char === "}" && --depth === 0)
            return at + 1;
    }
    return -1;
}

/** The longest common start of two texts, in whole tokens. */
function tokenPrefix(tokenizer: TemplateTokenizer, a: string, b: string): string {
    const x = tokenizer.tokenize(a);
    return tokenizer.detokenize(x.slice(0, sharedEnds(x, tokenizer.tokenize(b)).start));
}

/** The longest common end of two texts, in whole tokens. */
function tokenSuffix(tokenizer: TemplateTokenizer, a: string, b: string): string {
    const x = tokenizer.tokenize(a);
    return tokenizer.detokenize(x.slice(x.length - sharedEnd(x, tokenizer.tokenize(b))));
}

function commonSuffix(a: string, b: string): string {
    return a.slice(a.length - sharedEnd(a, b));
}
