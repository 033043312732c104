import type {ArgumentCallSyntax} from "../preparedPrompt.js";
import type {JinjaChatTemplate} from "./jinjaChatTemplate.js";
import {templateArgumentSyntax} from "./argumentSyntax.js";

/**
 * The per-argument call syntax the engine forces and parses (reply/argumentCallReply.ts), where
 * the template writes one. Only syntaxes whose values end in markup of their own are taken:
 * Gemma 4's `call:NAME{n:7,…}` ends a number at whatever follows it, which the reply side cannot
 * tell yet, so Gemma keeps node-llama-cpp's reading.
 */
export function argumentCallSyntax(template: JinjaChatTemplate): ArgumentCallSyntax | null {
    const syntax = templateArgumentSyntax(template);
    return syntax == null || syntax.valueSuffix.trim() === "" ? null : {kind: "arguments", ...syntax};
}
