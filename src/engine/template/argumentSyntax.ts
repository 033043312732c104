import type {JinjaChatTemplate} from "./jinjaChatTemplate.js";
import {callsText, generationPrompt, tokenPrefix, tokenSuffix, type TemplateTokenizer} from "./templateCallSyntax.js";
import type {TemplateMessage} from "./templateMessage.js";

/**
 * A call syntax that writes each argument on its own rather than one JSON object of them, as the
 * model's own template writes it: Qwen3-Coder, Qwen3.5, Nemotron 3 and StepFun's
 * `<function=NAME>` + `<parameter=KEY>\nVALUE\n</parameter>`, GLM's `<arg_key>KEY</arg_key>` +
 * `<arg_value>VALUE</arg_value>`, MiniMax-M2's `<invoke name="NAME">` + `<parameter name="KEY">`,
 * Gemma 4's `call:NAME{key:<|"|>VALUE<|"|>,n:7}`. Found as templateCallSyntax.ts finds the JSON
 * kind: calls are rendered into an assistant turn and taken apart around the probe's name, keys
 * and values. A call is
 * `prefix NAME nameSuffix (keyPrefix KEY keySuffix VALUE valueSuffix) (separator …)* callSuffix`:
 * the split puts shared markup where a call without arguments still has it (MiniMax's `">`).
 * Strings are written raw between `stringOpen` and `stringClose` (Gemma's `<|"|>`, else nothing);
 * other values as JSON.
 */
export type ArgumentSyntaxText = {
    sectionPrefix: string, prefix: string, nameSuffix: string,
    keyPrefix: string, keySuffix: string, stringOpen: string, stringClose: string, valueSuffix: string, separator: string,
    callSuffix: string, sectionSuffix: string,
    /** Null: the template writes one call per message. */
    betweenCalls: string | null
};

const name = "chatserve_probe_first";
const secondName = "chatserve_probe_second";
const key = "chatserve_arg";
const otherKey = "chatserve_other";
const value = "chatserve value 1";
const number = 7;

const derived = new WeakMap<JinjaChatTemplate, ArgumentSyntaxText | null>();

/** The template's per-argument call syntax, worked out once per template; null where it writes calls otherwise (or none). */
export function templateArgumentSyntax(template: JinjaChatTemplate, tokenizer: TemplateTokenizer): ArgumentSyntaxText | null {
    if (!derived.has(template))
        derived.set(template, deriveArgumentSyntax(template, tokenizer));
    return derived.get(template)!;
}

export function deriveArgumentSyntax(template: JinjaChatTemplate, tokenizer: TemplateTokenizer): ArgumentSyntaxText | null {
    const none = render(template, []) ?? generationPrompt(template);
    const added = (calls: ReadonlyArray<[string, Record<string, unknown>]>) => {
        const text = render(template, calls);
        return none == null || text == null ? null : callsText(tokenizer, none, text, template.turnEnd);
    };
    const single = added([[name, {[key]: value}]]);
    const numeric = added([[name, {[key]: number}]]);
    const pair = added([[name, {[key]: value, [otherKey]: value}]]);
    if (single == null || numeric == null || pair == null)
        return null;
    const one = locate(single, String(value));
    const num = locate(numeric, String(number));
    if (one == null || num == null || one.before !== num.before || one.head !== num.head)
        return null;
    // What a string has around it that a number has not: Gemma's <|"|> quotes.
    if (!one.keySuffix.startsWith(num.keySuffix) || !one.tail.endsWith(num.tail))
        return null;
    const stringOpen = one.keySuffix.slice(num.keySuffix.length);
    const stringClose = one.tail.slice(0, one.tail.length - num.tail.length);
    // Between the first value and the second key: the value's end, a separator, the key's opening.
    const firstEnd = pair.indexOf(value) + value.length + stringClose.length;
    const otherAt = pair.indexOf(otherKey, firstEnd);
    if (pair.indexOf(value) < 0 || otherAt < 0 || !pair.slice(firstEnd - stringClose.length, firstEnd).endsWith(stringClose))
        return null;
    const between = pair.slice(firstEnd, otherAt);
    const keyPrefix = tokenSuffix(tokenizer, one.head, between);
    const rest = between.slice(0, between.length - keyPrefix.length);
    const valueSuffix = tokenPrefix(tokenizer, rest, num.tail);
    const tail = num.tail.slice(valueSuffix.length);
    if (keyPrefix === "" && valueSuffix === "" && rest === "")
        return null;
    const syntax = {
        prefix: one.before, nameSuffix: one.head.slice(0, one.head.length - keyPrefix.length), keyPrefix, keySuffix: num.keySuffix,
        stringOpen, stringClose, valueSuffix, separator: rest.slice(valueSuffix.length)
    };
    return {...syntax, ...sections(tokenizer, added([[name, {[key]: number}], [secondName, {[key]: number}]]), one.before, tail, valueSuffix)};
}

/** How a reply's calls open, close and follow one another: the JSON kind's section split (templateCallSyntax.ts). */
function sections(tokenizer: TemplateTokenizer, double: string | null, before: string, tail: string, valueSuffix: string):
    Pick<ArgumentSyntaxText, "sectionPrefix" | "prefix" | "callSuffix" | "sectionSuffix" | "betweenCalls"> {
    const firstEnd = double == null ? -1 : double.indexOf(String(number), double.indexOf(key)) + String(number).length + valueSuffix.length;
    const second = double == null ? -1 : double.indexOf(secondName);
    if (double == null || firstEnd < 0 || second < firstEnd)
        return {sectionPrefix: "", prefix: before, callSuffix: tail, sectionSuffix: "", betweenCalls: null};
    // `between` is one call's end, a separator and the next call's opening.
    const between = double.slice(firstEnd, second);
    const prefix = tokenSuffix(tokenizer, before, between);
    const callSuffix = tokenPrefix(tokenizer, tail, between.slice(0, between.length - prefix.length));
    return {
        sectionPrefix: before.slice(0, before.length - prefix.length), prefix, callSuffix, sectionSuffix: tail.slice(callSuffix.length),
        betweenCalls: between.slice(callSuffix.length, between.length - prefix.length)
    };
}

/** A one-argument call's text around its name, key and value; null where they are not in that order (or the arguments are one JSON object). */
function locate(text: string, written: string): {before: string, head: string, keySuffix: string, tail: string} | null {
    const nameAt = text.indexOf(name);
    const keyAt = nameAt < 0 ? -1 : text.indexOf(key, nameAt + name.length);
    const valueAt = keyAt < 0 ? -1 : text.indexOf(written, keyAt + key.length);
    if (valueAt < 0)
        return null;
    const keySuffix = text.slice(keyAt + key.length, valueAt);
    // `"chatserve_arg": "…"` is JSON's way, which templateCallSyntax.ts reads.
    if (/^"\s*:/.test(keySuffix))
        return null;
    return {before: text.slice(0, nameAt), head: text.slice(nameAt + name.length, keyAt), keySuffix, tail: text.slice(valueAt + written.length)};
}

function render(template: JinjaChatTemplate, calls: ReadonlyArray<[string, Record<string, unknown>]>): string | null {
    const messages: TemplateMessage[] = [
        {role: "user", content: "chatserve probe question"},
        {role: "assistant", content: "", ...(calls.length === 0 ? {} : {tool_calls: calls.map(([callName, args], index) => ({
            type: "function" as const, function: {name: callName, arguments: JSON.stringify(args)}, id: `call0000${index + 1}`
        }))})}
    ];
    try {
        return template.render({messages, thinking: true}, {continueLast: true});
    } catch {
        return null;
    }
}
