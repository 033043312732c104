import {readFile} from "node:fs/promises";
import {parseBenchArgs} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startServerProcess} from "./serverProcess.js";

/**
 * Overload (issue 3): 32 clients at once against `--max-queue 8`, three waves. Every request must
 * be answered, 200 with a complete stream or 503 with Retry-After, none may hang, and the server's
 * memory must come back to where it was.
 *
 *   npm run bench:overload [-- model.gguf --threads N]
 */
const clients = 32;
const waves = Number(process.env.OVERLOAD_WAVES ?? 10);
const requestTimeoutMs = 120_000;

const options = parseBenchArgs(process.argv.slice(2));
ensureBuilt(true);
const server = await startServerProcess(options, ["--max-queue", "8"]);

type Outcome = {status: number | "timeout" | "error", retryAfter: string | null, complete: boolean, ms: number};

async function one(index: number): Promise<Outcome> {
    const start = performance.now();
    try {
        const response = await fetch(`${server.url}/chat/completions`, {
            method: "POST",
            headers: {"Content-Type": "application/json"},
            signal: AbortSignal.timeout(requestTimeoutMs),
            body: JSON.stringify({model: server.modelId, stream: true, max_tokens: 32, temperature: 0, messages: [{role: "user", content: `Client ${index}: tell me a story.`}]})
        });
        const text = await response.text();
        return {status: response.status, retryAfter: response.headers.get("retry-after"), complete: text.trimEnd().endsWith("data: [DONE]"), ms: performance.now() - start};
    } catch (error) {
        return {status: (error as Error).name === "TimeoutError" ? "timeout" : "error", retryAfter: null, complete: false, ms: performance.now() - start};
    }
}

async function rssMiB(pid: number): Promise<number> {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

try {
    // Load the model and warm every path once before the first memory reading.
    await one(-1);
    const rss = [await rssMiB(server.pid)];
    const rows: string[] = [];
    for (let wave = 1; wave <= waves; wave++) {
        const outcomes = await Promise.all(Array.from({length: clients}, (_, index) => one(index)));
        const ok = outcomes.filter((outcome) => outcome.status === 200 && outcome.complete).length;
        const busy = outcomes.filter((outcome) => outcome.status === 503 && outcome.retryAfter != null).length;
        const other = clients - ok - busy;
        await new Promise((resolve) => setTimeout(resolve, 1000));
        rss.push(await rssMiB(server.pid));
        const slowest = Math.max(...outcomes.map((outcome) => outcome.ms));
        rows.push(`| ${wave} | ${ok} | ${busy} | ${other} | ${Math.round(slowest)} | ${rss.at(-1)!.toFixed(1)} |`);
    }
    process.stdout.write([
        `## overload: ${clients} clients × ${waves} waves, --max-queue 8, default --parallel (${server.modelId}, ${server.threads} threads)`,
        "",
        `RSS after warm-up: ${rss[0]!.toFixed(1)} MiB`,
        "",
        "| wave | 200, complete stream | 503 with Retry-After | anything else | slowest ms | RSS after, MiB |",
        "|---|---|---|---|---|---|",
        ...rows,
        ""
    ].join("\n"));
} finally {
    await server.stop();
}
