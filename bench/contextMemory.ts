// What the default context costs and what it serves: `node --import tsx bench/contextMemory.ts [model.gguf …] [-- chatserve flags]`
// (after `npm run build`). For each model, chatserve runs as its own process with the given flags
// (none: the defaults); the script prints the banner's model line, /v1/models' figures, the
// server's resident memory (VmRSS, and its peak VmHWM) before and after the model loads, and then
// serves one prompt of about 20,000 tokens (or 85 % of the context, if that is smaller).
// The figures in docs/context.md come from this script.
import {spawn} from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";

const projectRoot = fileURLToPath(new URL("..", import.meta.url));
const separator = process.argv.indexOf("--");
const files = process.argv.slice(2, separator < 0 ? undefined : separator);
const flags = separator < 0 ? [] : process.argv.slice(separator + 1);
const models = files.length > 0 ? files : [
    path.join(projectRoot, "../shared/models/tiny-random-qwen2.5-chatml-tools.gguf"),
    path.join(projectRoot, "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf")
];
const MiB = 1024 * 1024;

/** Resident memory of a process, from /proc (Linux), in MiB. */
async function memoryOf(pid: number): Promise<{rss: number, peak: number}> {
    const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
    const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return {rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024};
}

/** Words of varied text: about 1.3 tokens a word with the Qwen2 and SmolLM2 tokenizers. */
function longPrompt(words: number): string {
    const vocabulary = ["the", "server", "reads", "a", "file", "of", "models", "and", "answers", "each", "request", "with", "tokens", "agent", "tool", "call"];
    return Array.from({length: words}, (_, index) => `${vocabulary[index % vocabulary.length]}${index % 7 === 0 ? ` ${index}` : ""}`).join(" ");
}

async function post(url: string, body: object): Promise<{status: number, json: Record<string, any>, ms: number}> {
    const start = performance.now();
    const response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    return {status: response.status, json: await response.json() as Record<string, any>, ms: performance.now() - start};
}

for (const file of models) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-context-"));
    const id = path.basename(file, ".gguf");
    await fs.symlink(path.resolve(file), path.join(dir, `${id}.gguf`));
    const child = spawn(process.execPath, ["bin/chatserve.cjs", "--models", dir, "--port", "0", "--log-level", "warn", ...flags], {cwd: projectRoot});
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => output += chunk.toString());
    child.stderr.on("data", (chunk: Buffer) => output += chunk.toString());
    try {
        const url = await new Promise<string>((resolve, reject) => {
            child.stdout.on("data", () => {
                const match = /listening on (http:\/\/\S+\/v1)/.exec(output);
                if (match != null && output.includes(`  - ${id}`))
                    resolve(match[1]!);
            });
            child.once("exit", () => reject(new Error(output)));
        });
        const started = await memoryOf(child.pid!);
        const describe = async () => await (await fetch(`${url}/models/${id}`)).json() as Record<string, any>;
        const before = await describe();
        const load = await post(`${url}/chat/completions`, {model: id, messages: [{role: "user", content: "Hi"}], max_tokens: 1});
        const loaded = await memoryOf(child.pid!);
        const after = await describe();

        const contextLength = after.context_length as number;
        let words = Math.round(Math.min(20_000, contextLength * 0.85) / 1.3);
        let reply = await post(`${url}/chat/completions`, {model: id, messages: [{role: "user", content: longPrompt(words)}], max_tokens: 256, temperature: 0});
        // Aim the prompt at its token count: one retry with the measured tokens per word.
        const target = Math.min(20_000, contextLength * 0.85);
        const promptTokens = reply.json.usage?.prompt_tokens as number | undefined;
        if (promptTokens != null && Math.abs(promptTokens - target) > target * 0.05) {
            words = Math.round(words * target / promptTokens);
            reply = await post(`${url}/chat/completions`, {model: id, messages: [{role: "user", content: longPrompt(words)}], max_tokens: 256, temperature: 0});
        }
        const served = await memoryOf(child.pid!);

        console.log(`## ${id}${flags.length > 0 ? ` (${flags.join(" ")})` : " (defaults)"}`);
        console.log(output.split("\n").filter((line) => line.startsWith("memory:") || line.startsWith(`  - ${id}`)).join("\n"));
        console.log(`before load: context_length ${before.context_length}, parallel ${before.parallel}, kv_cache_bytes ${before.kv_cache_bytes} (${(before.kv_cache_bytes / MiB).toFixed(1)} MiB)`);
        console.log(`after load:  context_memory_bytes ${after.context_memory_bytes} (${(after.context_memory_bytes / MiB).toFixed(1)} MiB); load request ${load.status} in ${load.ms.toFixed(0)} ms`);
        console.log(`RSS: ${started.rss.toFixed(0)} MiB at start, ${loaded.rss.toFixed(0)} MiB loaded (+${(loaded.rss - started.rss).toFixed(0)}), ` +
            `${served.rss.toFixed(0)} MiB after the long prompt (peak ${served.peak.toFixed(0)})`);
        console.log(reply.status === 200
            ? `long prompt: ${reply.json.usage.prompt_tokens} prompt tokens, ${reply.json.usage.completion_tokens} generated (${reply.json.choices[0].finish_reason}) in ${reply.ms.toFixed(0)} ms`
            : `long prompt: ${reply.status} ${reply.json.error?.code}: ${reply.json.error?.message}`);
        console.log();
    } catch (error) {
        console.error(output);
        throw error;
    } finally {
        child.kill("SIGTERM");
        await new Promise((resolve) => child.once("exit", resolve));
        await fs.rm(dir, {recursive: true, force: true});
    }
}
