import {spawn} from "node:child_process";
import {parseBenchArgs} from "./args.js";
import {ensureBuilt} from "./build.js";
import {concurrent, conversation, singleStream, warmUp, type HttpTarget} from "./httpStreams.js";
import {startServerProcess, stopChild} from "./serverProcess.js";
import {median, ratio, summarize} from "./stats.js";

/**
 * chatserve against llama.cpp's own C++ server on the same model, both at their defaults, over the
 * same HTTP phases as `npm run bench`: single-stream decode, 4 concurrent streams, and the follow-up
 * turn of a conversation.
 *
 * Both servers stay up for the whole comparison (an idle one uses no CPU) and take turns phase by
 * phase, the order swapped every run, so each pair of figures is measured seconds apart: the
 * machine's drift over minutes cannot favour either server, and the per-pair ratios show the noise
 * that is left.
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
type Server = {name: "chatserve" | "llamaServer", target: HttpTarget, stop(): Promise<void>};
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** The phases, each a function of the run's index; every one runs on both servers before the next. */
const phases: Array<(target: HttpTarget, run: number) => Promise<Partial<Figures>>> = [
    async (target, run) => ({decode: (await singleStream(target, run)).decodeTokPerS}),
    async (target, run) => {
        const streams = await concurrent(target, run, 4);
        return {aggregate: streams.aggregateTokPerS, ttftP95: streams.ttftP95Ms};
    },
    async (target, run) => {
        const chat = await conversation(target, run, options.systemPromptTokens);
        return {turn1: chat.turn1.ttftMs, turn2: chat.turn2.ttftMs, cached: chat.turn2.cachedTokens};
    }
];

async function startLlamaServer(): Promise<Server> {
    const port = 18_000 + Math.floor(Math.random() * 1000);
    const child = spawn(llamaServerBinary as string, ["-m", options.modelPath, "--host", "127.0.0.1", "--port", String(port)], {stdio: ["ignore", "ignore", "pipe"]});
    // Its log must be read: llama-server blocks once a full pipe stops its log thread (it did, mid-run).
    let logTail = "";
    child.stderr!.on("data", (chunk: Buffer) => logTail = (logTail + chunk.toString("utf8")).slice(-4000));
    const url = `http://127.0.0.1:${port}`;
    for (let attempt = 0; ; attempt++) {
        const ok = await fetch(`${url}/health`).then((response) => response.ok, () => false);
        if (ok)
            break;
        if (attempt > 600 || child.exitCode != null) {
            await stopChild(child);
            throw new Error(`llama-server did not become healthy:\n${logTail}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {name: "llamaServer", target: {url: `${url}/v1`, model: "model", maxTokens: options.maxTokens}, stop: () => stopChild(child)};
}

async function startChatserve(): Promise<Server> {
    const server = await startServerProcess(options);
    return {name: "chatserve", target: {url: server.url, model: server.modelId, maxTokens: options.maxTokens}, stop: () => server.stop()};
}

const results: Record<Server["name"], Figures[]> = {chatserve: [], llamaServer: []};
const servers: Server[] = [];
try {
    servers.push(await startLlamaServer());
    servers.push(await startChatserve());
    for (const server of servers)
        await warmUp(server.target);
    for (let run = 1; run <= options.runs; run++) {
        const order = run % 2 === 1 ? servers : [...servers].reverse();
        log(`run ${run}/${options.runs}: ${order.map((server) => server.name).join(" then ")}, phase by phase`);
        const figures = new Map(servers.map((server) => [server, {} as Figures]));
        for (const phase of phases) {
            for (const server of order) {
                // A moment for the other server's compute threads to stop spinning.
                await new Promise((resolve) => setTimeout(resolve, 200));
                Object.assign(figures.get(server)!, await phase(server.target, run));
            }
        }
        for (const [server, measured] of figures)
            results[server.name].push(measured);
    }
} finally {
    await Promise.all(servers.map((server) => server.stop()));
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
 * Medians and their ratio, then the ratio within each pair (the two servers measured back to back):
 * its median and range.
 */
const row = (name: string, unit: string, pick: (figures: Figures) => number, digits = 1) => {
    const ours = median(results.chatserve.map(pick));
    const theirs = median(results.llamaServer.map(pick));
    const paired = summarize(results.chatserve.map((figures, run) => ratio(pick(figures), pick(results.llamaServer[run]!))));
    return `| ${name} | ${ours.toFixed(digits)} | ${theirs.toFixed(digits)} | ${unit} | ${ratio(ours, theirs).toFixed(3)} | ` +
        `${paired.median.toFixed(3)} (${paired.min.toFixed(3)}–${paired.max.toFixed(3)}) |`;
};
process.stdout.write([
    `## chatserve vs llama-server (${options.modelPath}, ${chatserveSettings()}, llama-server at its defaults, ${options.runs} runs, phase by phase in turn, medians)`,
    "",
    "| measure | chatserve | llama-server | unit | chatserve ÷ llama-server | paired ratios: median (range) |",
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
