import type {BenchOptions} from "./args.js";
import type {BuildStatus} from "./build.js";
import type {Concurrent, Conversation, LongPrompt, SingleStream} from "./httpStreams.js";
import type {FloorResult, FloorRun} from "./inProcessFloor.js";
import type {machineInfo, LoadSample, PhaseLoad} from "./machineLoad.js";
import {ratio, summarize, type Summary} from "./stats.js";

/** Everything measured, as written to bench/results/latest.json (with the summary beside it). */

export const httpPhases = ["single", "long", "concurrent", "conversation"] as const;
export type HttpPhase = typeof httpPhases[number];

export type HttpRun = {
    single: SingleStream,
    long: LongPrompt,
    concurrent: Concurrent,
    conversation: Conversation,
    load: Record<HttpPhase, PhaseLoad>
};

export type RawResults = {
    startedAt: string,
    options: BenchOptions,
    machine: ReturnType<typeof machineInfo>,
    build: BuildStatus,
    server: {backend: string, openmp: boolean, threads: number, decodeThreads: number, modelId: string, firstRequestMs: number},
    http: HttpRun[],
    /** node-llama-cpp's own evaluate(), in-process. */
    floor: FloorResult,
    /** chatserve's engine (chat service and down), in-process: HTTP, JSON and SSE left out. */
    engine: FloorResult
};

export type LoadSummary = {before: {busyPct: Summary, loadavg1: Summary}, during: {busyPct: Summary, oursPct: Summary, othersPct: Summary, loadavg1: Summary}};

function loadSummary(samples: PhaseLoad[]): LoadSummary {
    const of = (pick: (load: PhaseLoad) => LoadSample, key: keyof LoadSample) => summarize(samples.map((load) => pick(load)[key]));
    return {
        before: {busyPct: of((load) => load.before, "busyPct"), loadavg1: of((load) => load.before, "loadavg1")},
        during: {
            busyPct: of((load) => load.during, "busyPct"),
            oursPct: of((load) => load.during, "oursPct"),
            othersPct: of((load) => load.during, "othersPct"),
            loadavg1: of((load) => load.during, "loadavg1")
        }
    };
}

export function summarizeResults(raw: RawResults) {
    const http = raw.http;
    const floor = raw.floor.runs;
    const engine = raw.engine.runs;
    const metrics = {
        singleDecodeTokPerS: summarize(http.map((run) => run.single.decodeTokPerS)),
        singleTtftMs: summarize(http.map((run) => run.single.ttftMs)),
        singleEndToEndTokPerS: summarize(http.map((run) => run.single.endToEndTokPerS)),
        longPromptTokPerS: summarize(http.map((run) => run.long.promptTokPerS)),
        longTtftMs: summarize(http.map((run) => run.long.ttftMs)),
        concurrentAggregateTokPerS: summarize(http.map((run) => run.concurrent.aggregateTokPerS)),
        concurrentTtftP50Ms: summarize(http.map((run) => run.concurrent.ttftP50Ms)),
        concurrentTtftP95Ms: summarize(http.map((run) => run.concurrent.ttftP95Ms)),
        turn1TtftMs: summarize(http.map((run) => run.conversation.turn1.ttftMs)),
        turn2TtftMs: summarize(http.map((run) => run.conversation.turn2.ttftMs)),
        turn2CachedTokens: summarize(http.map((run) => run.conversation.turn2.cachedTokens)),
        floorDecodeTokPerS: summarize(floor.map((run) => run.single.decodeTokPerS)),
        floorTtftMs: summarize(floor.map((run) => run.single.ttftMs)),
        floorPromptTokPerS: summarize(floor.map((run) => run.long.promptTokPerS)),
        engineDecodeTokPerS: summarize(engine.map((run) => run.single.decodeTokPerS)),
        engineTtftMs: summarize(engine.map((run) => run.single.ttftMs)),
        enginePromptTokPerS: summarize(engine.map((run) => run.long.promptTokPerS))
    };
    const decodeVsEngine = ratio(metrics.singleDecodeTokPerS.median, metrics.engineDecodeTokPerS.median);
    const perRun = (baseline: FloorRun[]) =>
        summarize(http.map((run, index) => ratio(run.single.decodeTokPerS, baseline[index]?.single.decodeTokPerS ?? Number.NaN)));
    const ratios = {
        /** HTTP single-stream decode ÷ node-llama-cpp's evaluate() in-process (medians). */
        httpDecodeOverFloor: ratio(metrics.singleDecodeTokPerS.median, metrics.floorDecodeTokPerS.median),
        /** The same within each run, where the floor's phase ran right after the server's. */
        httpDecodeOverFloorPerRun: perRun(floor),
        /** HTTP single-stream decode ÷ chatserve's engine in-process (medians). */
        httpDecodeOverEngine: decodeVsEngine,
        httpDecodeOverEnginePerRun: perRun(engine),
        /** 1 − HTTP ÷ engine (medians): the share of decode speed that HTTP + JSON + SSE cost. */
        httpOverhead: 1 - decodeVsEngine,
        /** Per run: 4-stream aggregate ÷ that run's single-stream decode; median. */
        concurrentOverSingle: summarize(http.map((run) => ratio(run.concurrent.aggregateTokPerS, run.single.decodeTokPerS))),
        /** Per run: turn-2 TTFT ÷ turn-1 TTFT; median. */
        turn2OverTurn1Ttft: summarize(http.map((run) => run.conversation.turn2OverTurn1Ttft)),
        httpPromptOverFloor: ratio(metrics.longPromptTokPerS.median, metrics.floorPromptTokPerS.median),
        httpTtftMinusFloorMs: metrics.singleTtftMs.median - metrics.floorTtftMs.median
    };
    const load = {
        ...Object.fromEntries(httpPhases.map((phase) => [phase, loadSummary(http.map((run) => run.load[phase]))])) as Record<HttpPhase, LoadSummary>,
        floorSingle: loadSummary(floor.map((run) => run.load.single)),
        floorLong: loadSummary(floor.map((run) => run.load.long)),
        engineSingle: loadSummary(engine.map((run) => run.load.single)),
        engineLong: loadSummary(engine.map((run) => run.load.long))
    };
    return {metrics, ratios, load};
}

export type BenchSummary = ReturnType<typeof summarizeResults>;
