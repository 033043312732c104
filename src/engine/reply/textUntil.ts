/**
 * GBNF for raw text that runs up to the first place `end` is written, and ends there: any text at
 * all (a `</div>` in a file a coding model writes into Qwen3-Coder's `<parameter=content>`) except
 * `end` itself. The rules are the states of a string-matching automaton (Knuth–Morris–Pratt): state
 * i means the text so far ends with `end`'s first i characters; each character moves to the state
 * its own match leaves, and the last of `end`'s characters ends the rule.
 */
export function textUntilRules(end: string, name: string, literal: (text: string) => string, classChar: (char: string) => string): string {
    const chars = [...end];
    const distinct = [...new Set(chars)];
    const next = transitions(chars);
    const others = `[^${distinct.map(classChar).join("")}]`;
    return chars.map((_char, state) => {
        const alternatives = distinct.map((char) => {
            const to = next(state, char);
            return to === chars.length ? literal(char) : `${literal(char)} ${name}${to}`;
        });
        return `${name}${state} ::= ${[...alternatives, `${others} ${name}0`].join(" | ")}`;
    }).join("\n");
}

/** The automaton's move: from `state` characters of `end` matched, on `char`, to how many are matched then. */
export function transitions(end: readonly string[]): (state: number, char: string) => number {
    // fallback[i]: the longest proper prefix of end[0..i] that is also its suffix.
    const fallback = new Array<number>(end.length).fill(0);
    for (let i = 1, k = 0; i < end.length; i++) {
        while (k > 0 && end[i] !== end[k])
            k = fallback[k - 1]!;
        if (end[i] === end[k])
            k++;
        fallback[i] = k;
    }
    const move = (state: number, char: string): number => {
        if (state < end.length && end[state] === char)
            return state + 1;
        return state === 0 ? 0 : move(fallback[state - 1]!, char);
    };
    return move;
}
