import type {JinjaChatTemplate} from "./jinjaChatTemplate.js";
import {generationPrompt} from "./templateCallSyntax.js";
import type {TemplateMessage} from "./templateMessage.js";

/**
 * A call syntax that writes each argument on its own rather than one JSON object of them, as the
 * model's own template writes it: Qwen3-Coder, Qwen3.5, Nemotron 3 and StepFun's
 * `<function=NAME>` + `<parameter=KEY>\nVALUE\n</parameter>`, GLM's `<arg_key>KEY</arg_key>` +
 * `<arg_value>VALUE</arg_value>`, MiniMax-M2's `<invoke name="NAME">` + `<parameter name="KEY">`,
 * Gemma 4's `call:NAME{key:<|"|>VALUE<|"|>,n:7}`. Found as templateCallSyntax.ts finds the JSON
 * kind: calls are rendered into an assistant turn and taken apart around the probe's name, keys
 * and values, as text (not tokens: a vocabulary that puts a space after each marker token, as
 * SentencePiece's does, would put that space into the markup), never cutting a `<tag>` in two.
 * A call is
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
export function templateArgumentSyntax(template: JinjaChatTemplate): ArgumentSyntaxText | null {
    if (!derived.has(template))
        derived.set(template, deriveArgumentSyntax(template));
    return derived.get(template)!;
}

export function deriveArgumentSyntax(template: JinjaChatTemplate): ArgumentSyntaxText | null {
    const none = render(template, []) ?? generationPrompt(template);
    const added = (calls: ReadonlyArray<[string, Record<string, unknown>]>) => {
        const text = render(template, calls);
        return none == null || text == null ? null : callsText(none, text, template.turnEnd);
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
    const keyPrefix = commonEnd(one.head, between);
    const rest = between.slice(0, between.length - keyPrefix.length);
    const valueSuffix = commonStart(rest, num.tail);
    const tail = num.tail.slice(valueSuffix.length);
    if (keyPrefix === "" && valueSuffix === "" && rest === "")
        return null;
    const syntax = {
        prefix: one.before, nameSuffix: one.head.slice(0, one.head.length - keyPrefix.length), keyPrefix, keySuffix: num.keySuffix,
        stringOpen, stringClose, valueSuffix, separator: rest.slice(valueSuffix.length)
    };
    const whole = {...syntax, ...sections(added([[name, {[key]: number}], [secondName, {[key]: number}]]), one.before, tail, valueSuffix)};
    // Markup that repeats the name or the key (MiniMax M3's `<city>…</city>`, a name written twice)
    // is not fixed text: such templates are left to node-llama-cpp's reading.
    return Object.values(whole).some((part) => part?.includes("chatserve_") === true) ? null : whole;
}

/** How a reply's calls open, close and follow one another: the JSON kind's section split (templateCallSyntax.ts). */
function sections(double: string | null, before: string, tail: string, valueSuffix: string):
    Pick<ArgumentSyntaxText, "sectionPrefix" | "prefix" | "callSuffix" | "sectionSuffix" | "betweenCalls"> {
    const firstEnd = double == null ? -1 : double.indexOf(String(number), double.indexOf(key)) + String(number).length + valueSuffix.length;
    const second = double == null ? -1 : double.indexOf(secondName);
    if (double == null || firstEnd < 0 || second < firstEnd)
        return {sectionPrefix: "", prefix: before, callSuffix: tail, sectionSuffix: "", betweenCalls: null};
    // `between` is one call's end, a separator and the next call's opening.
    const between = double.slice(firstEnd, second);
    const prefix = commonEnd(before, between);
    const callSuffix = commonStart(tail, between.slice(0, between.length - prefix.length));
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

/** What `withCalls` adds to `without`, trimmed at its start (a reply of calls begins with them) and without the turn's end. */
function callsText(without: string, withCalls: string, turnEnd: string): string | null {
    const start = commonStart(without, withCalls).length;
    let added = withCalls.slice(start).trimStart();
    // The renders end alike after the calls (the turn's end, a generation prompt's layout): that is not the call's.
    const end = commonEnd(without.slice(start), added).length;
    added = added.slice(0, added.length - end);
    if (turnEnd !== "" && added.trimEnd().endsWith(turnEnd))
        added = added.trimEnd().slice(0, -turnEnd.length);
    return added === "" ? null : added;
}

/** The longest common start of two texts, not ending inside a `<tag>` of either. */
function commonStart(a: string, b: string): string {
    let length = 0;
    while (length < a.length && length < b.length && a[length] === b[length])
        length++;
    for (const text of [a, b]) {
        const open = tagAround(text, length);
        if (open != null)
            length = open;
    }
    return a.slice(0, length);
}

/** The longest common end of two texts, not beginning inside a `<tag>` of either. */
function commonEnd(a: string, b: string): string {
    let length = 0;
    while (length < a.length && length < b.length && a[a.length - 1 - length] === b[b.length - 1 - length])
        length++;
    for (const text of [a, b]) {
        const start = text.length - length;
        if (tagAround(text, start) != null)
            length = text.length - (text.indexOf(">", start) + 1);
    }
    return a.slice(a.length - length);
}

/** Where the `<tag>` that position `at` of `text` falls inside begins, if it falls inside one. */
function tagAround(text: string, at: number): number | null {
    const open = at <= 0 ? -1 : text.lastIndexOf("<", at - 1);
    return open >= 0 && !text.slice(open, at).includes(">") && text.indexOf(">", at) >= 0 ? open : null;
}
