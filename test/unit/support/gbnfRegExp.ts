/**
 * A GBNF grammar without recursion as a JavaScript regular expression, to check in a unit test
 * exactly which texts a grammar allows: rules are inlined, literals unescaped, and character
 * classes, groups, alternatives and repetitions kept (their syntax is the same).
 */
export function gbnfRegExp(grammar: string, root = "root"): RegExp {
    const rules = new Map(grammar.split("\n").filter((line) => line.includes(" ::= ")).map((line) => {
        const at = line.indexOf(" ::= ");
        return [line.slice(0, at), line.slice(at + 5)] as const;
    }));
    const inline = (name: string, depth: number): string => {
        const body = rules.get(name);
        if (body == null)
            throw new Error(`no rule ${name}`);
        if (depth > 64)
            throw new Error(`rule ${name} recurses`);
        return `(?:${toRegExpSource(body, (rule) => inline(rule, depth + 1))})`;
    };
    return new RegExp(`^${inline(root, 0)}$`);
}

const tokenPattern = /\s*("(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|[A-Za-z0-9-]+|\{\d+(?:,\d*)?\}|[()|?*+])/y;

function toRegExpSource(body: string, rule: (name: string) => string): string {
    let source = "";
    // One per call: rules are inlined from inside this loop.
    const token = new RegExp(tokenPattern);
    while (token.lastIndex < body.trimEnd().length) {
        const match = token.exec(body);
        if (match == null)
            throw new Error(`cannot read GBNF at ${body.slice(token.lastIndex)}`);
        const [, text] = match as unknown as [string, string];
        if (text.startsWith("\""))
            source += unescapeLiteral(text.slice(1, -1)).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&").replace(/\n/g, "\\n");
        else if (text.startsWith("[") || text.startsWith("{") || "|?*+)".includes(text))
            source += text;
        else if (text === "(")
            source += "(?:";
        else
            source += rule(text);
    }
    return source;
}

function unescapeLiteral(text: string): string {
    return text.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, (_, escape: string) => {
        if (escape.length > 1)
            return String.fromCharCode(parseInt(escape.slice(1), 16));
        return ({n: "\n", t: "\t", r: "\r"} as Record<string, string>)[escape] ?? escape;
    });
}
