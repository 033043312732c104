import fs from "node:fs/promises";
import path from "node:path";
import {parseBenchArgs, projectRoot} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startFloorProcess} from "./floorProcess.js";
import {singleReply, singleStream, warmUp, type HttpTarget} from "./httpStreams.js";
import {startIdleClient} from "./idleClient.js";
import {leanStream} from "./leanStream.js";
import {startLlamaServer, takeLlamaServerFlag, type LlamaServer} from "./llamaServerProcess.js";
import {machineInfo, measurePhase} from "./machineLoad.js";
import {startServerProcess} from "./serverProcess.js";
import {median, medianInterval, perSecond, summarize} from "./stats.js";
import {ownCpuNs, threadRunNs, withCpu} from "./threadCpu.js";

/**
 * `npm run bench:overhead`: what HTTP, JSON and SSE cost single-stream decode, the issue's
 * "overhead ≤ 2 %" target, measured closely enough to tell.
 *
 *   npm run bench:overhead -- [model.gguf] [--runs N (pairs, default 30)] [--max-tokens N (256)]
 *                             [--llama-server PATH]
 *
 * The server and the engine floor (chatserve's chat service and engine in-process, no HTTP; see
 * engineFloor.ts) both stay up and take turns stream by stream, the order reversed every pair, with
 * `npm run bench`'s floor too (node-llama-cpp's own evaluate(), for the issue's "≥ 0.98× the floor"). On
 * this machine two decode figures taken minutes apart differ by up to 20 %, so `npm run bench`'s few
 * runs cannot tell 2 % from noise. Many pairs, each measured seconds apart, can: the report gives
 * the median of the per-pair ratios with a distribution-free 95 % interval.
 *
 * Each pair also sends the server one request without streaming and one streamed to a client that
 * parses nothing (leanStream.ts), and with --llama-server the same three requests to llama.cpp's C++
 * server: streamed ÷ non-streamed, end to end, is what delivering each token as an event costs, a
 * figure the engine floor cannot give for llama-server, with and without the client's own share.
 * Where Linux's SCHED_IDLE is at hand, a fourth request streams to the lean client in a process that
 * runs only on cycles nobody else wants (idleClient.ts): the client's share of the two cores is then
 * out of the throughput figure as well.
 */

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const {binary: llamaServerBinary, rest} = takeLlamaServerFlag(process.argv.slice(2));
const options = parseBenchArgs(rest, {out: "bench/results/overhead.json", runs: 30, maxTokens: 256});
ensureBuilt(options.build);

const machine = machineInfo();
log(`${machine.availableParallelism} cores, load average ${machine.loadavg.map((value) => value.toFixed(2)).join(" ")}`);
const server = await startServerProcess(options);
const target = {url: server.url, model: server.modelId, maxTokens: options.maxTokens};
const floorOptions = {
    modelPath: options.modelPath, gpu: options.gpu, threads: server.threads, decodeThreads: server.decodeThreads,
    flashAttention: options.flashAttention, maxTokens: options.maxTokens, longPromptTokens: options.longPromptTokens
};
const engine = await startFloorProcess("engine", floorOptions);
// The issue's own floor (node-llama-cpp's evaluate(), as in `npm run bench`), in the same pairs.
const nodeLlamaCpp = await startFloorProcess("node-llama-cpp", floorOptions);
let llamaServer: LlamaServer | undefined;
const idleClient = await startIdleClient();
const warmUpPairs = 2;

/**
 * One server's figures in a pair, tok/s: its stream's decode (first to last token), and end to end
 * (request to its end) that stream, a stream read by the lean client (and by the idle one, where
 * there is one), and a non-streamed reply.
 */
type ServerFigures = {decode: number, streamed: number, leanStreamed: number, idleStreamed?: number, replied: number, cpu?: CpuPerToken};
/**
 * chatserve's CPU per token, in nanoseconds: its JS thread's (where HTTP, JSON and the events are
 * handled, with the kernel time of their writes) for the lean client's stream and for the
 * non-streamed reply, and the lean client's own.
 */
type CpuPerToken = {serverStreamed: number, serverReplied: number, leanClient: number};
type Pair = {engine: number, engineEndToEnd: number, nodeLlamaCpp: number, chatserve: ServerFigures, llamaServer?: ServerFigures, othersPct: number};

/** A server's requests (three, four with the idle client), each a step that fills in `figures`; `pid` (chatserve's) also records how busy the rest of the machine was. */
function serverSteps(target: HttpTarget, run: number, pid: number | undefined, figures: Partial<ServerFigures>, busy: number[]) {
    const clocks = {server: () => pid == null ? Number.NaN : threadRunNs(pid), client: ownCpuNs};
    // The CPU clocks are read around the request alone, not measurePhase's idle second before it.
    const measureWithCpu = async <T>(request: () => Promise<T>) => {
        const {value, load} = await measurePhase(pid, () => withCpu(clocks, request));
        if (pid != null)
            busy.push(load.during.othersPct);
        return value;
    };
    const measure = async <T>(request: () => Promise<T>): Promise<T> => (await measureWithCpu(request)).value;
    // Filled in by the lean stream's step and the reply's, in whichever order the pair runs them.
    const cpu: Partial<CpuPerToken> = {};
    if (pid != null)
        figures.cpu = cpu as CpuPerToken;
    return [
        async () => {
            const stream = await measure(() => singleStream(target, run));
            figures.decode = stream.decodeTokPerS;
            figures.streamed = stream.endToEndTokPerS;
        },
        async () => {
            const {value, spentNs} = await measureWithCpu(() => leanStream(target, run));
            figures.leanStreamed = value.endToEndTokPerS;
            cpu.serverStreamed = spentNs.server! / value.completionTokens;
            cpu.leanClient = spentNs.client! / value.completionTokens;
        },
        async () => {
            const {value, spentNs} = await measureWithCpu(() => singleReply(target, run));
            figures.replied = value.endToEndTokPerS;
            cpu.serverReplied = spentNs.server! / value.completionTokens;
        },
        ...idleClient == null ? [] : [async () => {
            // Its load is not kept in `busy`: the idle client's own process would read as another's.
            const {value} = await measurePhase(pid, () => idleClient.stream(target, run));
            figures.idleStreamed = value.endToEndTokPerS;
        }]
    ];
}

const pairs: Pair[] = [];
try {
    if (llamaServerBinary != null)
        llamaServer = await startLlamaServer(llamaServerBinary, options.modelPath, options.maxTokens);
    await warmUp(target);
    if (llamaServer != null)
        await warmUp(llamaServer.target);
    // Pairs before the first are run and thrown away: warmUp's streams (prompts.ts, warmUpStreams)
    // warm the fetch client's path, and these the others a pair takes (the lean client's stream, the
    // non-streamed reply, the CPU readings), which V8 optimises only after they have run hot a while.
    for (let run = 1 - warmUpPairs; run <= options.runs; run++) {
        const pair = {chatserve: {}, llamaServer: llamaServer == null ? undefined : {}} as Pair;
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
                const {decodeTokPerS, load} = await nodeLlamaCpp.single(run);
                pair.nodeLlamaCpp = decodeTokPerS;
                busy.push(load.during.othersPct);
            },
            ...serverSteps(target, run, server.pid, pair.chatserve, busy),
            ...llamaServer == null ? [] : serverSteps(llamaServer.target, run, undefined, pair.llamaServer!, busy)
        ];
        for (const step of run % 2 === 0 ? steps.reverse() : steps)
            await step();
        pair.othersPct = Math.max(...busy);
        if (run < 1) {
            log(`warm-up pair ${run + warmUpPairs}/${warmUpPairs} done`);
            continue;
        }
        pairs.push(pair);
        const cost = (figures: ServerFigures) => (figures.streamed / figures.replied).toFixed(3);
        log(`pair ${run}/${options.runs}: HTTP ${pair.chatserve.decode.toFixed(1)} tok/s, engine ${pair.engine.toFixed(1)}, ratio ${(pair.chatserve.decode / pair.engine).toFixed(3)}, node-llama-cpp ${pair.nodeLlamaCpp.toFixed(1)}` +
            `; streamed ÷ not ${cost(pair.chatserve)}${pair.llamaServer == null ? "" : `, llama-server's ${cost(pair.llamaServer)}`}; others busy ${pair.othersPct.toFixed(0)} %`);
    }
} finally {
    await engine.stop();
    await nodeLlamaCpp.stop();
    await server.stop();
    await llamaServer?.stop();
    await idleClient?.stop();
}

const ratios = pairs.map((pair) => pair.chatserve.decode / pair.engine);
const llamaServers = pairs.flatMap((pair) => pair.llamaServer == null ? [] : [pair.llamaServer]);
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
    `| single-stream decode, medians (tok/s) | ${median(pairs.map((pair) => pair.chatserve.decode)).toFixed(1)} | ${median(pairs.map((pair) => pair.engine)).toFixed(1)} | |`,
    `| per pair: median (95 % interval; range) | | | ${spread.median.toFixed(3)} (${interval.low.toFixed(3)}–${interval.high.toFixed(3)}; ${spread.min.toFixed(3)}–${spread.max.toFixed(3)}) |`,
    "",
    `Overhead (1 − HTTP ÷ engine): ${percent(1 - spread.median)}, 95 % interval ${percent(1 - interval.high)} to ${percent(1 - interval.low)}.`,
    `HTTP single-stream decode ÷ node-llama-cpp's own evaluate() in-process (\`npm run bench\`'s floor), per pair: ${pairedRatio(pairs.map((pair) => pair.chatserve.decode / pair.nodeLlamaCpp))}` +
    ` (${median(pairs.map((pair) => pair.nodeLlamaCpp)).toFixed(1)} tok/s); the engine ÷ it: ${pairedRatio(pairs.map((pair) => pair.engine / pair.nodeLlamaCpp))}.`,
    `Other processes used up to ${Math.max(...pairs.map((pair) => pair.othersPct)).toFixed(0)} % of the machine during a stream (median ${median(pairs.map((pair) => pair.othersPct)).toFixed(0)} %).`,
    "",
    "What an event per token costs, end to end (request to its end, tok/s):",
    "",
    "| server | client | streamed | not streamed | streamed ÷ not, per pair: median (95 % interval) |",
    "|---|---|---|---|---|",
    ...streamingRows("chatserve", pairs.map((pair) => pair.chatserve)),
    ...streamingRows("llama-server", llamaServers),
    "",
    "fetch: the bench's client, which parses every event (sse.ts); lean: a bare socket that parses nothing until the end (leanStream.ts); " +
    (idleClient == null ? "idle: not measured (needs Linux's `chrt`)." : "idle: the lean client in a process under SCHED_IDLE, which yields the cores to everything else (idleClient.ts)."),
    "",
    `And chatserve's non-streamed request ÷ the engine floor, end to end (HTTP and JSON without an event per token): ${pairedRatio(pairs.map((pair) => pair.chatserve.replied / pair.engineEndToEnd))}.`,
    // The engine floor has no client: against it, the lean client leaves only what the server does.
    `chatserve streamed to the lean client ÷ the engine floor, end to end (HTTP, JSON and an event per token, without a client's parsing): ${pairedRatio(pairs.map((pair) => pair.chatserve.leanStreamed / pair.engineEndToEnd))}.`,
    ...cpuLines(pairs.map((pair) => pair.chatserve)),
    ...llamaServers.length === 0 ? [] : [
        // Decode, not end to end: llama-server's template renders the prompt ~25 tokens longer.
        `Single-stream decode, chatserve ÷ llama-server, per pair: ${pairedRatio(pairs.map((pair) => pair.chatserve.decode / pair.llamaServer!.decode))}` +
        ` (${median(pairs.map((pair) => pair.chatserve.decode)).toFixed(1)} against ${median(llamaServers.map((figures) => figures.decode)).toFixed(1)} tok/s).`
    ],
    ""
].join("\n"));

/** Fetch's and the lean client's stream against the non-streamed reply; none without figures. */
function streamingRows(name: string, figures: readonly ServerFigures[]): string[] {
    if (figures.length === 0)
        return [];
    const replied = median(figures.map((server) => server.replied)).toFixed(1);
    const clients = {streamed: "fetch", leanStreamed: "lean", idleStreamed: "idle"} as const;
    return (Object.keys(clients) as (keyof typeof clients)[]).filter((key) => figures[0]![key] != null).map((key) =>
        `| ${name} | ${clients[key]} | ${median(figures.map((server) => server[key]!)).toFixed(1)} | ${replied} | ` +
        `${pairedRatio(figures.map((server) => server[key]! / server.replied))} |`);
}

function pairedRatio(ratios: readonly number[], format = (value: number) => value.toFixed(3)): string {
    const interval = medianInterval(ratios);
    return `${format(median(ratios))} (${format(interval.low)}–${format(interval.high)})`;
}

/**
 * What the events cost in CPU rather than throughput: the JS thread's time per token streamed less
 * not streamed, as a share of a streamed token's time (its decode), and the lean client's.
 */
function cpuLines(figures: readonly ServerFigures[]): string[] {
    const measured = figures.filter((server) => server.cpu != null && Number.isFinite(server.cpu.serverStreamed));
    if (measured.length === 0)
        return [];
    const micro = (values: number[]) => `${(median(values) / 1000).toFixed(0)} µs`;
    const share = (perToken: (cpu: CpuPerToken) => number) =>
        pairedRatio(measured.map((server) => perToken(server.cpu!) * server.decode / 1e9), (value) => `${(100 * value).toFixed(1)} %`);
    return [
        `CPU per token (chatserve's JS thread, /proc schedstat; medians over pairs): ${micro(measured.map((server) => server.cpu!.serverStreamed))} streamed to the lean client, ` +
        `${micro(measured.map((server) => server.cpu!.serverReplied))} not streamed. The events' share of a token's decode time, per pair: ` +
        `${share((cpu) => cpu.serverStreamed - cpu.serverReplied)} on the server; the lean client's own CPU ${micro(measured.map((server) => server.cpu!.leanClient))} an event, ` +
        `${share((cpu) => cpu.leanClient)}.`
    ];
}
