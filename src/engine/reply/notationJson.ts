/**
 * Gemma 4's notation for a call's argument values, and JSON: `{unit:<|"|>c<|"|>,days:[1,2]}` is
 * `{"unit":"c","days":[1,2]}`. Keys are bare (up to their colon), strings raw between the quotes
 * (no escapes: a line break is one), and numbers, booleans, null, brackets and commas are JSON's
 * own. The client gets the arguments as JSON, piece by piece as the model writes them, as llama.cpp's
 * Gemma 4 mapper hands them on (common/chat-peg-parser.cpp, gemma4_to_json).
 */
import {isJson, partialSuffixLength} from "./partialText.js";

/**
 * The JSON of what `text` (the start of a value in the notation) has written so far: a prefix of
 * the whole value's JSON, which grows as the text does. What could still turn out otherwise is held
 * back: a key until its colon, the start of a quote at the end of a string. `complete`: the text is
 * one whole value and nothing more.
 */
export function notationToJson(text: string, quote: string): {json: string, complete: boolean} {
    let json = "";
    let at = 0;
    let inString = false;
    let expectKey = false;
    const open: string[] = [];
    while (at < text.length) {
        if (inString) {
            const end = text.indexOf(quote, at);
            if (end < 0) {
                json += escaped(text.slice(at, text.length - partialSuffixLength(text.slice(at), quote)));
                return {json, complete: false};
            }
            json += `${escaped(text.slice(at, end))}"`;
            at = end + quote.length;
            inString = false;
            continue;
        }
        const char = text[at]!;
        if (expectKey && char !== "}") {
            const colon = text.indexOf(":", at);
            if (colon < 0)
                return {json, complete: false};
            json += `${JSON.stringify(text.slice(at, colon).trim())}:`;
            at = colon + 1;
            expectKey = false;
            continue;
        }
        expectKey = false;
        if (text.startsWith(quote, at)) {
            json += "\"";
            inString = true;
            at += quote.length;
            continue;
        }
        if (quote.startsWith(text.slice(at)))
            return {json, complete: false};
        if (char === "{" || char === "[")
            open.push(char);
        else if (char === "}" || char === "]")
            open.pop();
        json += char;
        at++;
        expectKey = (char === "{" || char === ",") && open.at(-1) === "{";
    }
    return {json, complete: !inString && !expectKey && open.length === 0 && isJson(json)};
}

/** `value` as the template writes an argument's value (format_argument): keys bare and in dictsort's order, strings between `quote`s. */
export function notationOf(value: unknown, quote: string): string {
    if (typeof value === "string")
        return quote + value + quote;
    if (Array.isArray(value))
        return `[${value.map((item) => notationOf(item, quote)).join(",")}]`;
    if (value != null && typeof value === "object") {
        const keys = Object.keys(value).sort((a, b) => a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);
        return `{${keys.map((key) => `${key}:${notationOf((value as Record<string, unknown>)[key], quote)}`).join(",")}}`;
    }
    return JSON.stringify(value);
}

/** Raw string text as the inside of a JSON string. */
function escaped(text: string): string {
    return JSON.stringify(text).slice(1, -1);
}
