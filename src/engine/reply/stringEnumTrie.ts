/**
 * GBNF for exactly the JSON texts of `values` (as JSON.stringify writes them, quotes and escapes
 * included), written as a prefix tree: one rule per point where values part ways, each with one
 * alternative per distinct next character.
 *
 * Why: node-llama-cpp writes an enum as one alternation of every value, and llama.cpp's grammar
 * keeps a parse stack per alternative it is still inside, checking every vocabulary token against
 * each at every sampling step. 10,000 values held the single inference thread for 15 s a reply,
 * every other stream with it. In the tree, a step has as many stacks as there are next characters.
 *
 * The result is the body of rule `name`, followed by lines defining its helper rules, named
 * `name-1`, `name-2`…, for customRules.ts to append to the grammar. Named rules rather than nested
 * groups: llama.cpp parses a group by recursion, and values such as "a", "aa", "aaa"… nest as deep
 * as the longest value.
 *
 * No JSON text of a string is a prefix of another's (each ends at its first unescaped quote), so
 * the tree has values only at its leaves, and "a" and "ab" stay apart as `"a"` and `"ab"`.
 */
export function stringEnumGbnf(values: readonly string[], name: string): string {
    if (values.length === 0)
        throw new RangeError("an enum needs at least one value");
    return trieGbnf(values.map((value) => JSON.stringify(value)), name);
}

/**
 * GBNF for exactly one of `choices` as raw text (vLLM's `structured_outputs.choice`), in the same
 * prefix tree. Raw texts can be prefixes of one another ("a", "ab"): where one ends and others go
 * on, what follows is optional.
 */
export function textChoiceGbnf(choices: readonly string[], name: string): string {
    if (choices.length === 0)
        throw new RangeError("a choice needs at least one text");
    return trieGbnf(choices, name);
}

function trieGbnf(texts: readonly string[], name: string): string {
    const root = new TrieNode();
    for (const text of new Set(texts))
        root.insert([...text]);

    // Breadth first with a queue, not recursion: the tree may be as deep as a value is long.
    const pending: Array<{rule: string, node: TrieNode}> = [];
    const ruleOf = (node: TrieNode): string => {
        const rule = `${name}-${pending.length + 1}`;
        pending.push({rule, node});
        return rule;
    };
    const body = root.children.size === 0 ? "\"\"" : root.terminal ? `(${branches(root, ruleOf)})?` : branches(root, ruleOf);
    const helpers: string[] = [];
    for (let index = 0; index < pending.length; index++)
        helpers.push(`${pending[index]!.rule} ::= ${branches(pending[index]!.node, ruleOf)}`);
    return [body, ...helpers].join("\n");
}

class TrieNode {
    public readonly children = new Map<string, TrieNode>();
    /** A text ends here (only at leaves for JSON strings; anywhere for raw choices). */
    public terminal = false;

    public insert(chars: readonly string[]): void {
        let node: TrieNode = this;
        for (const char of chars) {
            let child = node.children.get(char);
            if (child == null) {
                child = new TrieNode();
                node.children.set(char, child);
            }
            node = child;
        }
        node.terminal = true;
    }
}

/** One alternative per child: the characters up to the next fork (or a value's end), then that fork's rule. */
function branches(node: TrieNode, ruleOf: (fork: TrieNode) => string): string {
    const parts = [...node.children].map(([first, child]) => {
        let text = first;
        let next = child;
        while (next.children.size === 1 && !next.terminal) {
            const [char, only] = next.children.entries().next().value!;
            text += char;
            next = only;
        }
        if (next.children.size === 0)
            return gbnfLiteral(text);
        return next.terminal ? `${gbnfLiteral(text)} ${ruleOf(next)}?` : `${gbnfLiteral(text)} ${ruleOf(next)}`;
    });
    return parts.length === 1 ? parts[0]! : parts.join(" | ");
}

/** A GBNF string literal of `text`: printable ASCII as itself, `"` and `\` escaped, every other character by its code point. */
function gbnfLiteral(text: string): string {
    let literal = "";
    for (const char of text) {
        const code = char.codePointAt(0)!;
        if (char === "\"" || char === "\\")
            literal += `\\${char}`;
        else if (code >= 0x20 && code < 0x7f)
            literal += char;
        else {
            const hex = code.toString(16).toUpperCase();
            literal += code < 0x100 ? `\\x${hex.padStart(2, "0")}` : code < 0x10000 ? `\\u${hex.padStart(4, "0")}` : `\\U${hex.padStart(8, "0")}`;
        }
    }
    return `"${literal}"`;
}
