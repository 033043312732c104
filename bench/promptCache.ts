import {existsSync} from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {parseBenchArgs} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startLlamaServer, takeLlamaServerFlag} from "./llamaServerProcess.js";
import {machineInfo} from "./machineLoad.js";
import {rotation, type RotationFigures} from "./promptCacheRotation.js";
import {AgentSession, type TurnFigures} from "./promptCacheSession.js";
import {startServerProcess} from "./serverProcess.js";
import {streamChat} from "./sse.js";

/**
 * The prompt cache (docs/prompt-cache.md) on an agent's session, against llama-server at its defaults
 * (its --cache-ram on):
 *
 *   npm run bench:prompt-cache -- [--llama-server PATH] [model.gguf] [--system-tokens N] [--no-build]
 *
 * One session: a long system prompt with the agent's tools, three turns (cold, then warm twice);
 * then four other conversations, the fourth taking the session's sequence (four sequences; llama-server
 * has four slots by default), and the session's next turn; then a request for another model, which
 * evicts the session's (chatserve, --max-loaded-models 1), and the next turn; then a restart, and the
 * next turn. Each turn's time to its first token, prompt tokens and cached tokens are printed as a
 * table. The bench model is trained for 8,192 tokens, so the session's prompt stays under that.
 * Then eight conversations take turns on two sequences (promptCacheRotation.ts), on each server.
 */
const {binary, rest} = takeLlamaServerFlag(process.argv.slice(2));
const systemAt = rest.indexOf("--system-tokens");
const systemTokens = systemAt < 0 ? 5800 : Number(rest[systemAt + 1]);
const options = parseBenchArgs(systemAt < 0 ? rest : rest.filter((_arg, index) => index !== systemAt && index !== systemAt + 1),
    {out: "bench/results/prompt-cache.json", maxTokens: 8, runs: 1});
const llamaServer = binary ?? (existsSync("/tmp/llama-build/bin/llama-server") ? "/tmp/llama-build/bin/llama-server" : undefined);
const build = ensureBuilt(options.build);
const otherModel = path.resolve(path.dirname(options.modelPath), "stories260K.gguf");
const contextSize = 8192;

/** Short conversations of their own, each on a free sequence, the last one on the session's. */
async function otherConversations(url: string, model: string): Promise<void> {
    for (let index = 1; index <= 4; index++)
        await new AgentSession(`Conversation ${index}`, 400, 2).turn(url, model, "other");
}

async function chatserveRun(): Promise<TurnFigures[]> {
    const cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bench-prompt-cache-"));
    const flags = ["--ctx-size", String(contextSize), "--parallel", "4", "--max-loaded-models", "1", "--prompt-cache-dir", cacheDir];
    const start = () => startServerProcess(options, flags, existsSync(otherModel) ? [otherModel] : []);
    const session = new AgentSession("Agent session", systemTokens, options.maxTokens);
    const figures: TurnFigures[] = [];
    let server = await start();
    try {
        const {url, modelId} = server;
        figures.push(await session.turn(url, modelId, "cold (turn 1)"));
        figures.push(await session.turn(url, modelId, "warm (turn 2)"));
        figures.push(await session.turn(url, modelId, "warm (turn 3)"));
        await otherConversations(url, modelId);
        figures.push(await session.turn(url, modelId, "after a fifth conversation took its sequence"));
        if (existsSync(otherModel)) {
            await streamChat(url, "stories260K", [{role: "user", content: "Once upon a time"}], 4);
            figures.push(await session.turn(url, modelId, "after another model evicted it (reload included)"));
        }
        await server.stop();
        server = await start();
        figures.push(await session.turn(server.url, modelId, "after a restart (load included)"));
    } finally {
        await server.stop();
        await fs.rm(cacheDir, {recursive: true, force: true});
    }
    return figures;
}

async function llamaServerRun(binaryPath: string): Promise<TurnFigures[]> {
    const session = new AgentSession("Agent session", systemTokens, options.maxTokens);
    const figures: TurnFigures[] = [];
    let server = await startLlamaServer(binaryPath, options.modelPath, options.maxTokens);
    try {
        const {url, model} = server.target;
        figures.push(await session.turn(url, model, "cold (turn 1)"));
        figures.push(await session.turn(url, model, "warm (turn 2)"));
        figures.push(await session.turn(url, model, "warm (turn 3)"));
        await otherConversations(url, model);
        figures.push(await session.turn(url, model, "after a fifth conversation took its sequence"));
        await server.stop();
        server = await startLlamaServer(binaryPath, options.modelPath, options.maxTokens);
        figures.push(await session.turn(server.target.url, model, "after a restart (load included)"));
    } finally {
        await server.stop();
    }
    return figures;
}

/** Eight conversations of ~1,800 tokens each on two sequences (chatserve --parallel 2, llama-server -np 2). */
async function rotationRun(server: "chatserve" | "llama-server"): Promise<RotationFigures> {
    if (server === "chatserve") {
        const cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bench-prompt-cache-"));
        const running = await startServerProcess(options, ["--ctx-size", String(contextSize), "--parallel", "2", "--prompt-cache-dir", cacheDir]);
        try {
            return await rotation(running.url, running.modelId, 8, 800, options.maxTokens);
        } finally {
            await running.stop();
            await fs.rm(cacheDir, {recursive: true, force: true});
        }
    }
    const running = await startLlamaServer(llamaServer!, options.modelPath, options.maxTokens, ["-np", "2"]);
    try {
        return await rotation(running.target.url, running.target.model, 8, 800, options.maxTokens);
    } finally {
        await running.stop();
    }
}

const chatserve = await chatserveRun();
const reference = llamaServer == null ? [] : await llamaServerRun(llamaServer);
const rotations: Array<[string, RotationFigures]> = [["chatserve", await rotationRun("chatserve")]];
if (llamaServer != null)
    rotations.push(["llama-server", await rotationRun("llama-server")]);
const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const cold = (rows: TurnFigures[]) => rows[0]?.ttftMs ?? Number.NaN;
const lines = [
    `# Prompt cache: an agent session (~${chatserve[0]?.promptTokens} prompt tokens), ${path.basename(options.modelPath)}`,
    "",
    `chatserve --ctx-size ${contextSize} --parallel 4 --max-loaded-models 1; llama-server at its defaults${llamaServer == null ? " (not run: no binary)" : ""}. build: ${build}. ${JSON.stringify(machineInfo())}`,
    "",
    "| server | phase | TTFT ms | ÷ its cold | prompt tokens | cached |",
    "|---|---|---:|---:|---:|---:|",
    ...[["chatserve", chatserve], ["llama-server", reference]].flatMap(([name, rows]) => (rows as TurnFigures[]).map((row) =>
        `| ${name as string} | ${row.phase} | ${row.ttftMs.toFixed(0)} | ${(row.ttftMs / cold(rows as TurnFigures[])).toFixed(3)} | ${row.promptTokens} | ${row.cachedTokens} |`)),
    "",
    "Eight conversations (~1,800 prompt tokens each) taking turns on two sequences: TTFT ms, the rotated turns ÷ the median warm turn.",
    "",
    "| server | cold, median | warm, median | rotated, median | rotated, max | rotated max ÷ warm | rotated turns' cached tokens |",
    "|---|---:|---:|---:|---:|---:|---|",
    ...rotations.map(([name, figures]) => `| ${name} | ${middle(figures.cold).toFixed(0)} | ${middle(figures.warm).toFixed(0)} | ${middle(figures.rotated).toFixed(0)} | ` +
        `${Math.max(...figures.rotated).toFixed(0)} | ${(Math.max(...figures.rotated) / middle(figures.warm)).toFixed(2)} | ${figures.rotatedCached.join(", ")} |`)
];
console.log(lines.join("\n"));
await fs.mkdir(path.dirname(options.outFile), {recursive: true});
await fs.writeFile(options.outFile, JSON.stringify({chatserve, llamaServer: reference, rotations: Object.fromEntries(rotations), systemTokens, model: options.modelPath}, null, 2) + "\n");
