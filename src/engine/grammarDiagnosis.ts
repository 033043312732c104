import {spawn} from "node:child_process";
import {createRequire} from "node:module";
import {pathToFileURL} from "node:url";

/**
 * Why llama.cpp's grammar parser refuses a GBNF text, in llama.cpp's own words, with the line and
 * column it stopped at. node-llama-cpp says only "Failed to parse grammar": the parser writes its
 * reason ("expecting name at …", "Undefined rule identifier 'x'") with fprintf to the process's
 * stderr, which Node cannot read back from its own process. So a refused grammar is parsed once more
 * in a short-lived child process (about half a second, only on this error path), whose stderr is
 * read. One at a time, and the last few answers kept: a client sending bad grammars in a loop costs
 * one child at a time, never a crowd of them.
 */

/** The child's script: llama.cpp's parser on the grammar read from stdin; every line it logs goes to stderr. */
const childScript = `
const {getLlama, LlamaGrammar, LlamaLogLevel} = await import(process.argv[1]);
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error, logger: (level, message) => process.stderr.write(message + "\\n")});
let grammar = "";
for await (const chunk of process.stdin) grammar += chunk;
try { new LlamaGrammar(llama, {grammar: grammar.slice(1)}); } catch {}
await new Promise((resolve) => setTimeout(resolve, 50));
process.exit(0);
`;

const timeoutMs = 15_000;
const keptAnswers = 16;

let queue: Promise<unknown> = Promise.resolve();
const answers = new Map<string, string | null>();

/**
 * llama.cpp's reason for refusing `grammar` (a sentence naming the line, or its log's lines), or
 * null when none could be read (the child failed to start, or the grammar parses after all).
 */
export function diagnoseGrammar(grammar: string): Promise<string | null> {
    if (answers.has(grammar))
        return Promise.resolve(answers.get(grammar)!);
    const answer = queue.then(() => answers.has(grammar) ? answers.get(grammar)! : parseInChild(grammar).then((stderr) => {
        const reason = stderr == null ? null : readParseError(stderr, grammar);
        answers.set(grammar, reason);
        if (answers.size > keptAnswers)
            answers.delete(answers.keys().next().value!);
        return reason;
    }));
    queue = answer.catch(() => {});
    return answer;
}

function parseInChild(grammar: string): Promise<string | null> {
    return new Promise((resolve) => {
        const module = pathToFileURL(createRequire(import.meta.url).resolve("node-llama-cpp")).href;
        const child = spawn(process.execPath, ["--input-type=module", "-e", childScript, module], {stdio: ["pipe", "ignore", "pipe"], timeout: timeoutMs});
        let stderr = "";
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
            // Enough to hold the grammar echoed back twice; the rest is of no use.
            if (stderr.length < 4 * grammar.length + 65_536)
                stderr += chunk;
        });
        child.on("error", () => resolve(null));
        child.on("close", () => resolve(stderr));
        // A leading character so an empty grammar is still one write; the child drops it.
        child.stdin.on("error", () => {});
        child.stdin.end(`.${grammar}`);
    });
}

/**
 * llama.cpp's lines → one sentence. The parser's line is "parse: error parsing grammar: WHAT\n\nGRAMMAR\n"
 * where WHAT often ends "at REST", REST being the grammar from where it stopped: its length gives
 * the line and column. Other refusals (an undefined rule, left recursion, no root rule) are log lines.
 */
export function readParseError(stderr: string, grammar: string): string | null {
    const marker = "error parsing grammar: ";
    const start = stderr.indexOf(marker);
    if (start >= 0) {
        let what = stderr.slice(start + marker.length);
        const echoed = what.indexOf(`\n\n${grammar}\n`);
        if (echoed >= 0)
            what = what.slice(0, echoed);
        const at = /^(.*?) at ([\s\S]*)$/.exec(what);
        if (at != null && grammar.endsWith(at[2]!)) {
            const {line, column} = position(grammar, grammar.length - at[2]!.length);
            const rest = at[2]!.split("\n")[0]!;
            return `line ${line}, column ${column}: ${at[1]}${rest === "" ? " at the end of the line" : ` at '${shorten(rest)}'`}`;
        }
        return shorten(what.trim());
    }
    const logged = stderr.split("\n").map((line) => line.trim())
        .filter((line) => line !== "" && line !== "failed to parse grammar" && !line.startsWith("[node-llama-cpp]"));
    return logged.length === 0 ? null : logged.map(shorten).join("; ");
}

function position(text: string, offset: number): {line: number, column: number} {
    const before = text.slice(0, offset);
    const lines = before.split("\n");
    return {line: lines.length, column: [...lines.at(-1)!].length + 1};
}

function shorten(text: string): string {
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** A GBNF text llama.cpp's parser refused; `reason` is its own, with the line where it can be found. */
export class GrammarParseError extends Error {
    public constructor(public readonly reason: string) {
        super(`llama.cpp cannot parse the grammar: ${reason}`);
    }
}

/** `compile` (a LlamaGrammar's construction) or a GrammarParseError saying why llama.cpp refused the grammar. */
export async function compileOrDiagnose<T>(grammar: string, compile: () => T): Promise<T> {
    try {
        return compile();
    } catch (error) {
        const reason = await diagnoseGrammar(grammar);
        throw new GrammarParseError(reason ?? (error as Error).message);
    }
}
