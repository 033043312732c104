import {spawn} from "node:child_process";
import {parseBenchArgs} from "./args.js";
import {ensureBuilt} from "./build.js";
import {concurrent, conversation, singleStream, warmUp, type HttpTarget} from "./httpStreams.js";
import {startServerProcess, stopChild} from "./serverProcess.js";
import {median, ratio, summarize} from "./stats.js";

/**
 * chatserve against llama.cpp's own C++ server on the same model, both at their defaults, run
 * alternately (one server at a time), over the same HTTP phases as `npm run bench`: single-stream
 * decode, 4 concurrent streams, and the follow-up turn of a conversation.
 *
 *   npm run bench:llama-server -- --llama-server /path/to/llama-server [model.gguf] [--runs N]
 *
 * Build llama-server from the llama.cpp source node-llama-cpp ships, so both run the same engine:
 *   git clone node_modules/node-llama-cpp/llama/gitRelease.bundle /tmp/llama.cpp
 *   cmake -B build -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF && cmake --build build --target llama-server
 */
const argv = process.argv.slice(2);
const flagAt = argv.indexOf("--llama-server");
const llamaServerBinary = flagAt >= 0 ? argv[flagAt + 1] : undefined;
if (llamaServerBinary == null)
    throw new Error("--llama-server /path/to/llama-server is required");
// Everything else is `npm run bench`'s own flags.
const options = parseBenchArgs(argv.filter((_arg, index) => index !== flagAt && index !== flagAt + 1));
ensureBuilt(options.build);

type Figures = {decode: number, aggregate: number, ttftP95: number, turn1: number, turn2: number, cached: number};
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function measure(target: HttpTarget, run: number): Promise<Figures> {
    const single = await singleStream(target, run);
    const streams = await concurrent(target, run, 4);
    const chat = await conversation(target, run, options.systemPromptTokens);
    return {
        decode: single.decodeTokPerS, aggregate: streams.aggregateTokPerS, ttftP95: streams.ttftP95Ms,
        turn1: chat.turn1.ttftMs, turn2: chat.turn2.ttftMs, cached: chat.turn2.cachedTokens
    };
}

async function withLlamaServer<T>(use: (target: HttpTarget) => Promise<T>): Promise<T> {
    const port = 18_000 + Math.floor(Math.random() * 1000);
    const child = spawn(llamaServerBinary as string, ["-m", options.modelPath, "--host", "127.0.0.1", "--port", String(port)], {stdio: ["ignore", "ignore", "pipe"]});
    try {
        const url = `http://127.0.0.1:${port}`;
        for (let attempt = 0; ; attempt++) {
            const ok = await fetch(`${url}/health`).then((response) => response.ok, () => false);
            if (ok)
                break;
            if (attempt > 600 || child.exitCode != null)
                throw new Error("llama-server did not become healthy");
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const target = {url: `${url}/v1`, model: "model", maxTokens: options.maxTokens};
        await warmUp(target);
        return await use(target);
    } finally {
        await stopChild(child);
    }
}

async function withChatserve<T>(use: (target: HttpTarget) => Promise<T>): Promise<T> {
    const server = await startServerProcess(options);
    try {
        const target = {url: server.url, model: server.modelId, maxTokens: options.maxTokens};
        await warmUp(target);
        return await use(target);
    } finally {
        await server.stop();
    }
}

const results: {chatserve: Figures[], llamaServer: Figures[]} = {chatserve: [], llamaServer: []};
for (let run = 1; run <= options.runs; run++) {
    log(`run ${run}/${options.runs}: llama-server`);
    results.llamaServer.push(await withLlamaServer((target) => measure(target, run)));
    log(`run ${run}/${options.runs}: chatserve`);
    results.chatserve.push(await withChatserve((target) => measure(target, run)));
}

function chatserveSettings(): string {
    const flags = [
        options.threads != null ? `--threads ${options.threads}` : "",
        options.decodeThreads != null ? `--decode-threads ${options.decodeThreads}` : "",
        options.flashAttention !== "auto" ? `--flash-attention ${options.flashAttention}` : "",
        process.env.UV_THREADPOOL_SIZE != null ? `UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE}` : ""
    ].filter((flag) => flag !== "");
    return flags.length === 0 ? "chatserve at its defaults" : `chatserve with ${flags.join(" ")}`;
}

/**
 * Medians, their ratio, and the range of the ratio within each run: the two servers of one run
 * ran back to back, so that range shows how far the machine's drift moves the comparison.
 */
const row = (name: string, unit: string, pick: (figures: Figures) => number, digits = 1) => {
    const ours = median(results.chatserve.map(pick));
    const theirs = median(results.llamaServer.map(pick));
    const perRun = summarize(results.chatserve.map((figures, run) => ratio(pick(figures), pick(results.llamaServer[run]!))));
    return `| ${name} | ${ours.toFixed(digits)} | ${theirs.toFixed(digits)} | ${unit} | ${ratio(ours, theirs).toFixed(3)} | ` +
        `${perRun.min.toFixed(3)}–${perRun.max.toFixed(3)} |`;
};
process.stdout.write([
    `## chatserve vs llama-server (${options.modelPath}, ${chatserveSettings()}, llama-server at its defaults, ${options.runs} alternating runs, medians)`,
    "",
    "| measure | chatserve | llama-server | unit | chatserve ÷ llama-server | per-run ratios |",
    "|---|---|---|---|---|---|",
    row("single-stream decode", "tok/s", (figures) => figures.decode),
    row("4-stream aggregate", "tok/s", (figures) => figures.aggregate),
    row("4-stream TTFT p95", "ms", (figures) => figures.ttftP95, 0),
    row("conversation turn-1 TTFT", "ms", (figures) => figures.turn1, 0),
    row("conversation turn-2 TTFT", "ms", (figures) => figures.turn2, 0),
    row("turn-2 ÷ turn-1 TTFT", "", (figures) => figures.turn2 / figures.turn1, 3),
    row("turn-2 cached prompt tokens", "tokens", (figures) => figures.cached, 0),
    ""
].join("\n"));
