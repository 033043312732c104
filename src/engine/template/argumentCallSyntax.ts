import type {ArgumentCallSyntax} from "../preparedPrompt.js";
import type {JinjaChatTemplate} from "./jinjaChatTemplate.js";
import {templateArgumentSyntax} from "./argumentSyntax.js";

/**
 * The per-argument call syntax the engine forces and parses (reply/argumentCallReply.ts), where
 * the template writes one. A JSON value with no closing markup of its own (Gemma 4's
 * `call:NAME{n:7,…}`) ends where the separator or the call's end begins (reply/argumentValue.ts).
 */
export function argumentCallSyntax(template: JinjaChatTemplate): ArgumentCallSyntax | null {
    const syntax = templateArgumentSyntax(template);
    // A value with neither closing markup nor a separator after it could not be told from the next key.
    return syntax == null || (syntax.valueSuffix.trim() === "" && syntax.separator === "") ? null : {kind: "arguments", ...syntax};
}
