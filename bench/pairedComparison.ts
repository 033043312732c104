import fs from "node:fs/promises";
import path from "node:path";
import type {BenchOptions} from "./args.js";
import {startServerProcess} from "./serverProcess.js";
import {concurrent, conversation, longPrompt, singleStream, warmUp, type HttpTarget} from "./httpStreams.js";
import {machineInfo, measurePhase} from "./machineLoad.js";
import {median, ratio, summarize} from "./stats.js";

/**
 * Two servers measured against each other over the HTTP phases of `npm run bench`: single-stream
 * decode, prompt processing, 4 concurrent streams and the follow-up turn of a conversation.
 *
 * Both stay up for the whole comparison (an idle one uses no CPU) and take turns phase by phase,
 * the order swapped every run, so each pair of figures is measured seconds apart: the machine's
 * drift over minutes cannot favour either, and the per-pair ratios show the noise that is left.
 */

/** `pid`: the server's process, so that the machine's load can tell its CPU from everyone else's. */
export type Contender = {name: string, target: HttpTarget, pid?: number, stop(): Promise<void>};

/** chatserve as a contender: its own process, with `extraArgs` after the bench's flags. */
export async function startChatserveContender(name: string, options: BenchOptions, extraArgs: readonly string[] = []): Promise<Contender> {
    const server = await startServerProcess(options, extraArgs);
    return {name, target: {url: server.url, model: server.modelId, maxTokens: options.maxTokens}, pid: server.pid, stop: () => server.stop()};
}

/** One phase on one server in run `run` (prompts differ per run): the figures it fills in. */
export type Phase<F> = (target: HttpTarget, run: number) => Promise<Partial<F>>;

/** A row of the table: the figure each run gives, its unit and digits. */
export type Row<F> = {name: string, unit: string, pick: (figures: F) => number, digits?: number};

/** What a comparison measures: its phases, in order (each runs on both servers before the next), and its table's rows. */
export type Suite<F> = {phases: Array<Phase<F>>, rows: Array<Row<F>>};

type Figures = {decode: number, prompt: number, aggregate: number, ttftP95: number, turn1: number, turn2: number, cached: number};

type Options = Pick<BenchOptions, "runs" | "longPromptTokens" | "systemPromptTokens" | "concurrency" | "outFile">;

/** `npm run bench`'s HTTP phases: decode, prompt processing, concurrent streams, the follow-up turn. */
export function standardSuite(options: Options): Suite<Figures> {
    return {phases: standardPhases(options), rows: standardRows(options.concurrency)};
}

function standardPhases(options: Options): Array<Phase<Figures>> {
    return [
        async (target, run) => ({decode: (await singleStream(target, run)).decodeTokPerS}),
        async (target, run) => ({prompt: (await longPrompt(target, run, options.longPromptTokens)).promptTokPerS}),
        async (target, run) => {
            const streams = await concurrent(target, run, options.concurrency);
            return {aggregate: streams.aggregateTokPerS, ttftP95: streams.ttftP95Ms};
        },
        async (target, run) => {
            const chat = await conversation(target, run, options.systemPromptTokens);
            return {turn1: chat.turn1.ttftMs, turn2: chat.turn2.ttftMs, cached: chat.turn2.cachedTokens};
        }
    ];
}

function standardRows(streams: number): Array<Row<Figures>> {
    return [
        {name: "single-stream decode", unit: "tok/s", pick: (figures) => figures.decode},
        {name: "prompt processing", unit: "tok/s", pick: (figures) => figures.prompt},
        {name: `${streams}-stream aggregate`, unit: "tok/s", pick: (figures) => figures.aggregate},
        {name: `${streams}-stream TTFT p95`, unit: "ms", pick: (figures) => figures.ttftP95, digits: 0},
        {name: "conversation turn-1 TTFT", unit: "ms", pick: (figures) => figures.turn1, digits: 0},
        {name: "conversation turn-2 TTFT", unit: "ms", pick: (figures) => figures.turn2, digits: 0},
        {name: "turn-2 ÷ turn-1 TTFT", unit: "", pick: (figures) => figures.turn2 / figures.turn1, digits: 3},
        {name: "turn-2 cached prompt tokens", unit: "tokens", pick: (figures) => figures.cached, digits: 0}
    ];
}

/** How busy the rest of the machine was: in a second's idle window before each run, and during each phase (the measured server and the bench left out). */
type MachineLoad = {othersBeforePct: number[], othersDuringPct: number[], loadavg1: number[]};

/**
 * Runs the comparison and stops both servers; writes every run's figures to `options.outFile`
 * (JSON) and resolves to the table, `first` ÷ `second`, and a line on the machine's load.
 */
export async function comparePaired<F extends object = Figures>(
    start: {first: () => Promise<Contender>, second: () => Promise<Contender>},
    options: Options,
    log: (message: string) => void,
    suite: Suite<F> = standardSuite(options) as unknown as Suite<F>
): Promise<string> {
    const contenders: Contender[] = [];
    const results = new Map<Contender, F[]>();
    const load: MachineLoad = {othersBeforePct: [], othersDuringPct: [], loadavg1: []};
    try {
        contenders.push(await start.first());
        contenders.push(await start.second());
        for (const contender of contenders) {
            await warmUp(contender.target);
            results.set(contender, []);
        }
        for (let run = 1; run <= options.runs; run++) {
            const order = run % 2 === 1 ? contenders : [...contenders].reverse();
            log(`run ${run}/${options.runs}: ${order.map((contender) => contender.name).join(" then ")}, phase by phase`);
            const figures = new Map(contenders.map((contender) => [contender, {} as F]));
            // Both servers idle: what the rest of the machine does (a second, which also lets the last run's threads stop spinning).
            const idle = await measurePhase(undefined, async () => undefined);
            load.othersBeforePct.push(idle.load.before.othersPct);
            load.loadavg1.push(idle.load.before.loadavg1);
            for (const phase of suite.phases) {
                for (const contender of order) {
                    // A moment for the other server's compute threads to stop spinning.
                    await new Promise((resolve) => setTimeout(resolve, 200));
                    const measured = await measurePhase(contender.pid, () => phase(contender.target, run), 0);
                    if (contender.pid != null)
                        load.othersDuringPct.push(measured.load.during.othersPct);
                    Object.assign(figures.get(contender)!, measured.value);
                }
            }
            for (const [contender, measured] of figures)
                results.get(contender)!.push(measured);
        }
    } finally {
        await Promise.all(contenders.map((contender) => contender.stop()));
    }
    const [first, second] = contenders as [Contender, Contender];
    await fs.mkdir(path.dirname(options.outFile), {recursive: true});
    await fs.writeFile(options.outFile, JSON.stringify({
        date: new Date().toISOString(),
        options,
        machine: machineInfo(),
        load,
        runs: [first, second].map((contender) => ({name: contender.name, figures: results.get(contender)}))
    }, null, 2));
    log(`wrote ${options.outFile}`);
    return [table(first.name, second.name, results.get(first)!, results.get(second)!, suite.rows), loadLine(load)].join("\n");
}

/**
 * Medians and their ratio, then the ratio within each pair (the two servers measured back to back):
 * its median and range.
 */
function table<F>(firstName: string, secondName: string, first: F[], second: F[], rows: Array<Row<F>>): string {
    const row = ({name, unit, pick, digits = 1}: Row<F>) => {
        const ours = median(first.map(pick));
        const theirs = median(second.map(pick));
        const paired = summarize(first.map((figures, run) => ratio(pick(figures), pick(second[run]!))));
        return `| ${name} | ${ours.toFixed(digits)} | ${theirs.toFixed(digits)} | ${unit} | ${ratio(ours, theirs).toFixed(3)} | ` +
            `${paired.median.toFixed(3)} (${paired.min.toFixed(3)}–${paired.max.toFixed(3)}) |`;
    };
    return [
        `| measure | ${firstName} | ${secondName} | unit | ${firstName} ÷ ${secondName} | paired ratios: median (range) |`,
        "|---|---|---|---|---|---|",
        ...rows.map(row),
        ""
    ].join("\n");
}

/** The machine's load in one line: a figure from a busy machine is not comparable with one from a quiet machine. */
function loadLine({othersBeforePct, othersDuringPct, loadavg1}: MachineLoad): string {
    const range = (values: number[], digits = 0) => {
        const {median: middle, min, max} = summarize(values);
        return `${middle.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;
    };
    const busy = othersDuringPct.some((pct) => pct > 10) || othersBeforePct.some((pct) => pct > 10);
    return `Machine (${machineInfo().availableParallelism} cores): other processes' CPU, % of all cores, median (range): ` +
        `${range(othersBeforePct)} with both servers idle before each run, ${range(othersDuringPct)} during the measured requests; ` +
        `1-minute load average ${range(loadavg1, 2)}.` +
        (busy ? " Other processes were busy: these figures are not comparable with a quiet machine's." : "") + "\n";
}
