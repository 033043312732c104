// The source file the speculative benchmarks rewrite and index (bench/speculative.ts, bench/lookupBookkeeping.ts).

/** A ~300-line source file: varied enough that its lines tokenize differently. */
export function sourceFile(lineCount = 300): string {
    const verbs = ["load", "parse", "store", "check", "render", "send", "merge", "split"];
    const nouns = ["user", "order", "invoice", "session", "token", "report", "image", "queue"];
    const lines: string[] = [];
    for (let index = 0; lines.length < lineCount; index++) {
        const verb = verbs[index % verbs.length]!;
        const noun = nouns[(index * 3) % nouns.length]!;
        lines.push(`export function ${verb}${noun[0]!.toUpperCase()}${noun.slice(1)}${index}(${noun}: ${noun === "image" ? "Buffer" : "Record<string, unknown>"}) {`);
        lines.push(`    if (${noun} == null) throw new Error("no ${noun} to ${verb} (${index})");`);
        lines.push(`    return {...${noun}, step: ${index * 7 % 13}, done: ${index % 2 === 0}};`);
        lines.push("}");
    }
    return lines.join("\n");
}
