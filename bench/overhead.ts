import fs from "node:fs/promises";
import path from "node:path";
import {parseBenchArgs, projectRoot} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startFloorProcess} from "./floorProcess.js";
import {singleReply, singleStream, warmUp} from "./httpStreams.js";
import {leanStream} from "./leanStream.js";
import {startLlamaServer, takeLlamaServerFlag, type LlamaServer} from "./llamaServerProcess.js";
import {machineInfo, measurePhase} from "./machineLoad.js";
import {startServerProcess} from "./serverProcess.js";
import {median, medianInterval, perSecond, summarize} from "./stats.js";

/**
 * `npm run bench:overhead`: what HTTP, JSON and SSE cost single-stream decode, the issue's
 * "overhead ≤ 2 %" target, measured closely enough to tell.
 *
 *   npm run bench:overhead -- [model.gguf] [--runs N (pairs, default 30)] [--max-tokens N (256)]
 *                             [--llama-server PATH]
 *
 * The server and the engine floor (chatserve's chat service and engine in-process, no HTTP; see
 * engineFloor.ts) both stay up and take turns stream by stream, the order reversed every pair. On
 * this machine two decode figures taken minutes apart differ by up to 20 %, so `npm run bench`'s few
 * runs cannot tell 2 % from noise. Many pairs, each measured seconds apart, can: the report gives
 * the median of the per-pair ratios with a distribution-free 95 % interval.
 *
 * Each pair also sends the server one request without streaming and one streamed to a client that
 * parses nothing (leanStream.ts), and with --llama-server the same three requests to llama.cpp's C++
 * server: streamed ÷ non-streamed, end to end, is what delivering each token as an event costs, a
 * figure the engine floor cannot give for llama-server, with and without the client's own share.
 */

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const {binary: llamaServerBinary, rest} = takeLlamaServerFlag(process.argv.slice(2));
const options = parseBenchArgs(rest, {out: "bench/results/overhead.json", runs: 30, maxTokens: 256});
ensureBuilt(options.build);

const machine = machineInfo();
log(`${machine.availableParallelism} cores, load average ${machine.loadavg.map((value) => value.toFixed(2)).join(" ")}`);
const server = await startServerProcess(options);
const target = {url: server.url, model: server.modelId, maxTokens: options.maxTokens};
const engine = await startFloorProcess("engine", {
    modelPath: options.modelPath, gpu: options.gpu, threads: server.threads, decodeThreads: server.decodeThreads,
    flashAttention: options.flashAttention, maxTokens: options.maxTokens, longPromptTokens: options.longPromptTokens
});
let llamaServer: LlamaServer | undefined;

/** One pair's figures, tok/s: decode (first to last token) and end to end (request to its end). */
type Pair = {
    http: number, engine: number, engineEndToEnd: number, streamed: number, leanStreamed: number, replied: number,
    llamaDecode?: number, llamaStreamed?: number, llamaLeanStreamed?: number, llamaReplied?: number, othersPct: number
};
const pairs: Pair[] = [];
try {
    if (llamaServerBinary != null)
        llamaServer = await startLlamaServer(llamaServerBinary, options.modelPath, options.maxTokens);
    await warmUp(target);
    if (llamaServer != null)
        await warmUp(llamaServer.target);
    const reference = llamaServer;
    for (let run = 1; run <= options.runs; run++) {
        const pair: Partial<Pair> = {};
        const busy: number[] = [];
        // Each step waits a second first (the engine floor does so itself), so none starts while
        // the one before's compute threads still spin.
        const steps = [
            async () => {
                const {decodeTokPerS, ttftMs, generatedTokens, load} = await engine.single(run);
                pair.engine = decodeTokPerS;
                // From the request to its last token, as a non-streamed reply's time is taken.
                pair.engineEndToEnd = perSecond(generatedTokens, ttftMs + 1000 * (generatedTokens - 1) / decodeTokPerS);
                busy.push(load.during.othersPct);
            },
            async () => {
                const {value, load} = await measurePhase(server.pid, () => singleStream(target, run));
                pair.http = value.decodeTokPerS;
                pair.streamed = value.endToEndTokPerS;
                busy.push(load.during.othersPct);
            },
            async () => pair.leanStreamed = (await measurePhase(server.pid, () => leanStream(target, run))).value.endToEndTokPerS,
            async () => pair.replied = (await measurePhase(server.pid, () => singleReply(target, run))).value.endToEndTokPerS,
            ...reference == null ? [] : [
                async () => {
                    const {value} = await measurePhase(undefined, () => singleStream(reference.target, run));
                    pair.llamaDecode = value.decodeTokPerS;
                    pair.llamaStreamed = value.endToEndTokPerS;
                },
                async () => pair.llamaLeanStreamed = (await measurePhase(undefined, () => leanStream(reference.target, run))).value.endToEndTokPerS,
                async () => pair.llamaReplied = (await measurePhase(undefined, () => singleReply(reference.target, run))).value.endToEndTokPerS
            ]
        ];
        for (const step of run % 2 === 0 ? steps.reverse() : steps)
            await step();
        const done = {...pair, othersPct: Math.max(...busy)} as Pair;
        pairs.push(done);
        log(`pair ${run}/${options.runs}: HTTP ${done.http.toFixed(1)} tok/s, engine ${done.engine.toFixed(1)}, ratio ${(done.http / done.engine).toFixed(3)}` +
            `; streamed ÷ not ${(done.streamed / done.replied).toFixed(3)}` +
            (llamaServer == null ? "" : `, llama-server's ${(done.llamaStreamed! / done.llamaReplied!).toFixed(3)}`) +
            `; others busy ${done.othersPct.toFixed(0)} %`);
    }
} finally {
    await engine.stop();
    await server.stop();
    await llamaServer?.stop();
}

const ratios = pairs.map((pair) => pair.http / pair.engine);
const spread = summarize(ratios);
const interval = medianInterval(ratios);
const percent = (value: number) => `${(100 * value).toFixed(1)} %`;
await fs.mkdir(path.dirname(options.outFile), {recursive: true});
await fs.writeFile(options.outFile, JSON.stringify({date: new Date().toISOString(), options, llamaServer: llamaServerBinary, machine, server: {threads: server.threads, decodeThreads: server.decodeThreads, backend: server.backend}, pairs}, null, 2) + "\n");
log(`results written to ${path.relative(projectRoot, options.outFile)}`);
process.stdout.write([
    `## HTTP + JSON + SSE overhead (${path.basename(options.modelPath)}, ${server.backend}, ${pairs.length} pairs of ${options.maxTokens}-token streams)`,
    "",
    "| measure | HTTP | engine floor | HTTP ÷ engine |",
    "|---|---|---|---|",
    `| single-stream decode, medians (tok/s) | ${median(pairs.map((pair) => pair.http)).toFixed(1)} | ${median(pairs.map((pair) => pair.engine)).toFixed(1)} | |`,
    `| per pair: median (95 % interval; range) | | | ${spread.median.toFixed(3)} (${interval.low.toFixed(3)}–${interval.high.toFixed(3)}; ${spread.min.toFixed(3)}–${spread.max.toFixed(3)}) |`,
    "",
    `Overhead (1 − HTTP ÷ engine): ${percent(1 - spread.median)}, 95 % interval ${percent(1 - interval.high)} to ${percent(1 - interval.low)}.`,
    `Other processes used up to ${Math.max(...pairs.map((pair) => pair.othersPct)).toFixed(0)} % of the machine during a stream (median ${median(pairs.map((pair) => pair.othersPct)).toFixed(0)} %).`,
    "",
    "What an event per token costs, end to end (request to its end, tok/s):",
    "",
    "| server | client | streamed | not streamed | streamed ÷ not, per pair: median (95 % interval) |",
    "|---|---|---|---|---|",
    streamingRow("chatserve", "fetch", pairs.map((pair) => [pair.streamed, pair.replied])),
    streamingRow("chatserve", "lean", pairs.map((pair) => [pair.leanStreamed, pair.replied])),
    ...llamaServer == null ? [] : [
        streamingRow("llama-server", "fetch", pairs.map((pair) => [pair.llamaStreamed!, pair.llamaReplied!])),
        streamingRow("llama-server", "lean", pairs.map((pair) => [pair.llamaLeanStreamed!, pair.llamaReplied!]))
    ],
    "",
    "fetch: the bench's client, which parses every event (sse.ts); lean: a bare socket that parses nothing until the end (leanStream.ts).",
    "",
    `And chatserve's non-streamed request ÷ the engine floor, end to end (HTTP and JSON without an event per token): ${pairedRatio(pairs.map((pair) => pair.replied / pair.engineEndToEnd))}.`,
    ...llamaServer == null ? [] : [
        // Decode, not end to end: llama-server's template renders the prompt ~25 tokens longer.
        `Single-stream decode, chatserve ÷ llama-server, per pair: ${pairedRatio(pairs.map((pair) => pair.http / pair.llamaDecode!))}` +
        ` (${median(pairs.map((pair) => pair.http)).toFixed(1)} against ${median(pairs.map((pair) => pair.llamaDecode!)).toFixed(1)} tok/s).`
    ],
    ""
].join("\n"));

function streamingRow(name: string, client: string, figures: ReadonlyArray<readonly [number, number]>): string {
    const ratios = figures.map(([streamed, replied]) => streamed / replied);
    return `| ${name} | ${client} | ${median(figures.map(([streamed]) => streamed)).toFixed(1)} | ${median(figures.map(([, replied]) => replied)).toFixed(1)} | ${pairedRatio(ratios)} |`;
}

function pairedRatio(ratios: readonly number[]): string {
    const interval = medianInterval(ratios);
    return `${median(ratios).toFixed(3)} (${interval.low.toFixed(3)}–${interval.high.toFixed(3)})`;
}
