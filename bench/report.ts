import type {Summary} from "./stats.js";
import type {BenchSummary, LoadSummary, RawResults} from "./summary.js";

/** The markdown a person reads: medians with min–max, the ratios, what was generated, how busy the machine was. */

function number(value: number, digits: number): string {
    return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}

function cell(summary: Summary, digits = 1): string {
    const range = summary.n > 1 ? ` (${number(summary.min, digits)}–${number(summary.max, digits)})` : "";
    return `${number(summary.median, digits)}${range}`;
}

function distinct(values: ReadonlyArray<string | number | null>): string {
    return [...new Set(values.map((value) => String(value)))].join(", ");
}

function range(values: readonly number[]): string {
    const finite = values.filter((value) => Number.isFinite(value));
    if (finite.length === 0)
        return "n/a";
    const low = Math.min(...finite);
    const high = Math.max(...finite);
    return low === high ? String(low) : `${low}–${high}`;
}

export function renderReport(raw: RawResults, summary: BenchSummary): string {
    const {metrics: m, ratios: r} = summary;
    const http = raw.http;
    const {options: o} = raw;
    const lines: string[] = [];
    const table = (header: string[], rows: string[][]) => {
        lines.push(`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`);
        rows.forEach((row) => lines.push(`| ${row.join(" | ")} |`));
        lines.push("");
    };

    lines.push(
        `## chatserve benchmark — ${raw.startedAt}`,
        "",
        `model \`${o.modelPath}\` · backend ${raw.server.backend}${raw.server.openmp ? " (OpenMP build)" : ""} · **${raw.server.threads} inference threads, ${raw.server.decodeThreads} for decoding** ` +
        `(floor: ${raw.floor.threads}, ${raw.floor.decodeThreads}; engine: ${raw.engine.threads}, ${raw.engine.decodeThreads}) · **${raw.machine.availableParallelism} cores available** (${raw.machine.cpuModel}) · ` +
        `${o.runs} run${o.runs === 1 ? "" : "s"} · max_tokens ${o.maxTokens}${o.flashAttention === "auto" ? "" : ` · **--flash-attention ${o.flashAttention}**`}${o.quick ? " · **--quick (smoke run)**" : ""} · build: ${raw.build}`,
        `server: separate process, default --parallel/--max-queue; first request (model load) ${number(raw.server.firstRequestMs, 0)} ms · ` +
        `floor load + warm-up ${number(raw.floor.loadMs, 0)} ms, engine ${number(raw.engine.loadMs, 0)} ms`,
        "",
        "Medians over the runs, (min–max) when more than one run.",
        ""
    );

    const promptTokens = (values: number[]) => `${range(values)} prompt tokens`;
    table(["measure", "value", "unit", "notes"], [
        ["HTTP single-stream decode", cell(m.singleDecodeTokPerS), "tok/s", "(completion − 1) ÷ first→last content chunk"],
        ["HTTP single-stream TTFT", cell(m.singleTtftMs, 0), "ms", promptTokens(http.map((run) => run.single.promptTokens))],
        ["HTTP single-stream end-to-end", cell(m.singleEndToEndTokPerS), "tok/s", "completion ÷ request→end"],
        ["HTTP prompt processing", cell(m.longPromptTokPerS, 0), "tok/s",
            `${promptTokens(http.map((run) => run.long.promptTokens))}, ${range(http.map((run) => run.long.cachedTokens))} cached; uncached ÷ TTFT`],
        ["HTTP long-prompt TTFT", cell(m.longTtftMs, 0), "ms", ""],
        [`HTTP ${o.concurrency}-stream aggregate`, cell(m.concurrentAggregateTokPerS), "tok/s", "all completion tokens ÷ wall time"],
        [`HTTP ${o.concurrency}-stream TTFT p50`, cell(m.concurrentTtftP50Ms, 0), "ms", ""],
        [`HTTP ${o.concurrency}-stream TTFT p95`, cell(m.concurrentTtftP95Ms, 0), "ms", ""],
        ["conversation turn-1 TTFT", cell(m.turn1TtftMs, 0), "ms", promptTokens(http.map((run) => run.conversation.turn1.promptTokens))],
        ["conversation turn-2 TTFT", cell(m.turn2TtftMs, 0), "ms", promptTokens(http.map((run) => run.conversation.turn2.promptTokens))],
        ["conversation turn-2 cached_tokens", cell(m.turn2CachedTokens, 0), "tokens", "usage.prompt_tokens_details.cached_tokens"],
        ["floor (in-process) decode", cell(m.floorDecodeTokPerS), "tok/s", `${range(raw.floor.runs.map((run) => run.single.generatedTokens))} tokens, EOG ignored`],
        ["floor (in-process) TTFT", cell(m.floorTtftMs, 0), "ms", promptTokens(raw.floor.runs.map((run) => run.single.promptTokens))],
        ["floor (in-process) prompt processing", cell(m.floorPromptTokPerS, 0), "tok/s", promptTokens(raw.floor.runs.map((run) => run.long.promptTokens))],
        ["engine (in-process, no HTTP) decode", cell(m.engineDecodeTokPerS), "tok/s", "chatserve's chat service and engine, same requests"],
        ["engine (in-process, no HTTP) TTFT", cell(m.engineTtftMs, 0), "ms", promptTokens(raw.engine.runs.map((run) => run.single.promptTokens))],
        ["engine (in-process, no HTTP) prompt processing", cell(m.enginePromptTokPerS, 0), "tok/s", promptTokens(raw.engine.runs.map((run) => run.long.promptTokens))]
    ]);

    table(["ratio", "value"], [
        ["HTTP single-stream decode ÷ in-process floor (node-llama-cpp's evaluate)", number(r.httpDecodeOverFloor, 3)],
        ["the same, run by run (each run's floor seconds from its HTTP phase)", cell(r.httpDecodeOverFloorPerRun, 3)],
        ["HTTP single-stream decode ÷ engine in-process (chatserve without HTTP)", number(r.httpDecodeOverEngine, 3)],
        ["the same, run by run", cell(r.httpDecodeOverEnginePerRun, 3)],
        ["HTTP + JSON + SSE overhead = 1 − (HTTP decode ÷ engine); few runs: `npm run bench:overhead` measures it closely", `${number(100 * r.httpOverhead, 1)} %`],
        [`${o.concurrency}-stream aggregate ÷ single-stream decode`, cell(r.concurrentOverSingle, 2)],
        ["turn-2 TTFT ÷ turn-1 TTFT", cell(r.turn2OverTurn1Ttft, 3)],
        ["HTTP prompt tok/s ÷ floor prompt tok/s", number(r.httpPromptOverFloor, 3)],
        ["HTTP TTFT − floor TTFT (short prompt)", `${number(r.httpTtftMinusFloorMs, 0)} ms`]
    ]);

    table(["generation check", "finish_reason", "completion_tokens"], [
        ["single stream", distinct(http.map((run) => run.single.finishReason)), range(http.map((run) => run.single.completionTokens))],
        ["long prompt (max_tokens 4)", distinct(http.map((run) => run.long.finishReason)), range(http.map((run) => run.long.completionTokens))],
        [`${o.concurrency} streams`, distinct(http.flatMap((run) => run.concurrent.perStream.map((stream) => stream.finishReason))),
            range(http.flatMap((run) => run.concurrent.perStream.map((stream) => stream.completionTokens)))],
        ["conversation turn 1", distinct(http.map((run) => run.conversation.turn1.finishReason)), range(http.map((run) => run.conversation.turn1.completionTokens))],
        ["conversation turn 2", distinct(http.map((run) => run.conversation.turn2.finishReason)), range(http.map((run) => run.conversation.turn2.completionTokens))]
    ]);

    const loadRow = (name: string, load: LoadSummary) => [
        name, cell(load.before.busyPct, 0), cell(load.before.loadavg1, 2),
        cell(load.during.busyPct, 0), cell(load.during.oursPct, 0), cell(load.during.othersPct, 0), cell(load.during.loadavg1, 2)
    ];
    lines.push(`Machine load (CPU busy % of all ${raw.machine.availableParallelism} cores; "before" = 1 s idle window just before the phase; ` +
        `"ours" = bench client + server/floor process; "others" = everything else):`, "");
    table(["phase", "before busy %", "before load1", "during busy %", "during ours %", "during others %", "load1 after"], [
        loadRow("HTTP single stream", summary.load.single),
        loadRow("HTTP long prompt", summary.load.long),
        loadRow(`HTTP ${o.concurrency} streams`, summary.load.concurrent),
        loadRow("HTTP conversation", summary.load.conversation),
        loadRow("floor single stream", summary.load.floorSingle),
        loadRow("floor long prompt", summary.load.floorLong),
        loadRow("engine single stream", summary.load.engineSingle),
        loadRow("engine long prompt", summary.load.engineLong)
    ]);
    lines.push(...contentionWarnings(summary));
    return lines.join("\n");
}

/** Other processes busy during a phase make its figures (and the HTTP ÷ floor ratios) unreliable. */
function contentionWarnings(summary: BenchSummary, thresholdPct = 10): string[] {
    const busy = Object.entries(summary.load)
        .filter(([, load]) => load.during.othersPct.max > thresholdPct)
        .map(([phase, load]) => `${phase} ${number(load.during.othersPct.max, 0)} %`);
    return busy.length === 0
        ? ["Other processes stayed under 10 % of the machine during every phase."]
        : [`**WARNING: other processes used more than ${thresholdPct} % of the machine during: ${busy.join(", ")} (max over runs).** ` +
            "llama.cpp's threads spin-wait on each other, so a busy core slows every token: treat those figures, and ratios " +
            "between phases measured under different load, as unreliable. Re-run on a quiet machine."];
}
