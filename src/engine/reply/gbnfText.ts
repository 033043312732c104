/** Pieces of GBNF text that the reply's grammars are written from (reply/grammars.ts). */

/** A literal, quoted and escaped. */
export function gbnfString(text: string): string {
    return `"${text.replace(/[\\"]/g, (char) => `\\${char}`).replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`;
}

/** A character inside a GBNF class (`[^…]`). */
export function gbnfClass(char: string): string {
    return /[\]\\^-]/.test(char) ? `\\${char}` : char === "\n" ? "\\n" : char;
}

/**
 * A JSON grammar's value without the blank lines node-llama-cpp's root ends a JSON reply with
 * (`"\n\n\n\n" [\n]*`): in a call's arguments the markup follows the value at once (Gemma 4's
 * `days:3}`), and a model made to write a line break first would write more digits instead.
 */
export function valueRule(grammar: string, rootRuleName: string): string {
    const line = grammar.split("\n").find((candidate) => candidate.startsWith(`${rootRuleName} ::= `));
    return line == null ? rootRuleName : line.slice(rootRuleName.length + 5).replace(/\s*"(\\n)+"\s*\[\\n\]\*\s*$/, "");
}
