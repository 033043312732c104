import fs from "node:fs/promises";
import path from "node:path";
import type {BenchOptions} from "./args.js";
import {startServerProcess} from "./serverProcess.js";
import {concurrent, conversation, longPrompt, singleStream, warmUp, type HttpTarget} from "./httpStreams.js";
import {median, ratio, summarize} from "./stats.js";

/**
 * Two servers measured against each other over the HTTP phases of `npm run bench`: single-stream
 * decode, prompt processing, 4 concurrent streams and the follow-up turn of a conversation.
 *
 * Both stay up for the whole comparison (an idle one uses no CPU) and take turns phase by phase,
 * the order swapped every run, so each pair of figures is measured seconds apart: the machine's
 * drift over minutes cannot favour either, and the per-pair ratios show the noise that is left.
 */

export type Contender = {name: string, target: HttpTarget, stop(): Promise<void>};

/** chatserve as a contender: its own process, with `extraArgs` after the bench's flags. */
export async function startChatserveContender(name: string, options: BenchOptions, extraArgs: readonly string[] = []): Promise<Contender> {
    const server = await startServerProcess(options, extraArgs);
    return {name, target: {url: server.url, model: server.modelId, maxTokens: options.maxTokens}, stop: () => server.stop()};
}

type Figures = {decode: number, prompt: number, aggregate: number, ttftP95: number, turn1: number, turn2: number, cached: number};

type Options = Pick<BenchOptions, "runs" | "longPromptTokens" | "systemPromptTokens" | "concurrency" | "outFile">;

/** The phases, each a function of the run's index; every one runs on both servers before the next. */
function phases(options: Options): Array<(target: HttpTarget, run: number) => Promise<Partial<Figures>>> {
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

/**
 * Runs the comparison and stops both servers; writes every run's figures to `options.outFile`
 * (JSON) and resolves to the table, `first` ÷ `second`.
 */
export async function comparePaired(
    start: {first: () => Promise<Contender>, second: () => Promise<Contender>},
    options: Options,
    log: (message: string) => void
): Promise<string> {
    const contenders: Contender[] = [];
    const results = new Map<Contender, Figures[]>();
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
            const figures = new Map(contenders.map((contender) => [contender, {} as Figures]));
            for (const phase of phases(options)) {
                for (const contender of order) {
                    // A moment for the other server's compute threads to stop spinning.
                    await new Promise((resolve) => setTimeout(resolve, 200));
                    Object.assign(figures.get(contender)!, await phase(contender.target, run));
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
        runs: [first, second].map((contender) => ({name: contender.name, figures: results.get(contender)}))
    }, null, 2));
    log(`wrote ${options.outFile}`);
    return table(first.name, second.name, results.get(first)!, results.get(second)!, options.concurrency);
}

/**
 * Medians and their ratio, then the ratio within each pair (the two servers measured back to back):
 * its median and range.
 */
function table(firstName: string, secondName: string, first: Figures[], second: Figures[], streams: number): string {
    const row = (name: string, unit: string, pick: (figures: Figures) => number, digits = 1) => {
        const ours = median(first.map(pick));
        const theirs = median(second.map(pick));
        const paired = summarize(first.map((figures, run) => ratio(pick(figures), pick(second[run]!))));
        return `| ${name} | ${ours.toFixed(digits)} | ${theirs.toFixed(digits)} | ${unit} | ${ratio(ours, theirs).toFixed(3)} | ` +
            `${paired.median.toFixed(3)} (${paired.min.toFixed(3)}–${paired.max.toFixed(3)}) |`;
    };
    return [
        `| measure | ${firstName} | ${secondName} | unit | ${firstName} ÷ ${secondName} | paired ratios: median (range) |`,
        "|---|---|---|---|---|---|",
        row("single-stream decode", "tok/s", (figures) => figures.decode),
        row("prompt processing", "tok/s", (figures) => figures.prompt),
        row(`${streams}-stream aggregate`, "tok/s", (figures) => figures.aggregate),
        row(`${streams}-stream TTFT p95`, "ms", (figures) => figures.ttftP95, 0),
        row("conversation turn-1 TTFT", "ms", (figures) => figures.turn1, 0),
        row("conversation turn-2 TTFT", "ms", (figures) => figures.turn2, 0),
        row("turn-2 ÷ turn-1 TTFT", "", (figures) => figures.turn2 / figures.turn1, 3),
        row("turn-2 cached prompt tokens", "tokens", (figures) => figures.cached, 0),
        ""
    ].join("\n");
}
