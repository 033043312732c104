// npm run bench:lookup-cost -- [--runs N]
//
// What lookup decoding (and its pool) costs where it does not pay, the measurement behind its being on
// by default: chatserve with lookup decoding off and on, on the bench model, over text that does not repeat itself.
// A random-weight model's greedy text does repeat (runs of the same few tokens, which lookup drafts
// well: bench/speculative.ts); sampled at temperature 1 it is near-uniform noise that never does,
// like a trained model's prose at its worst for lookup. Each phase, each run (every run its own seeds):
//   prose       one stream, 256 tokens at temperature 1: decode tokens/s
//   four        four such streams at once: their decode tokens/s, summed
//   short       8-token replies (temperature 1) after a ~6,000-token prompt already cached: ms per
//               reply, end to end (what indexing the whole prompt for lookup adds to every request)
//   repeat      the same prompt and seed again: the reply repeats an earlier one word for word,
//               which only the pool can draft (it pays here: the contrast)
// Both servers run in this process for the whole bench and take turns phase by phase, the order
// swapped every run, so each pair of figures is seconds apart and the machine's drift favours neither.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {resolveConfig} from "../src/config.js";
import {createLogger} from "../src/logger.js";
import {startServer} from "../src/server.js";
import {projectRoot} from "./args.js";
import {decodeTokPerS, streamChat, type ChatMessage} from "./sse.js";
import {median} from "./stats.js";

const argv = process.argv.slice(2);
const runs = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : 5;
const modelPath = path.resolve(projectRoot, "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf");

type Server = {name: string, url: string, stop(): Promise<void>};

async function chatserve(lookup: boolean): Promise<Server> {
    const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bench-lookup-"));
    await fs.symlink(modelPath, path.join(modelsDir, "bench.gguf"));
    const server = await startServer(resolveConfig({
        modelsDir, port: 0, ctxSize: 8192, parallel: 4, logLevel: "warn", lookupDecoding: lookup, promptCache: false
    }), createLogger("warn"));
    return {name: lookup ? "lookup on" : "lookup off", url: server.url, stop: async () => {
        await server.close(1000);
        await fs.rm(modelsDir, {recursive: true, force: true});
    }};
}

/** A ~6,000-token prompt: 190 lines of code. */
function longPrompt(): ChatMessage[] {
    const lines = Array.from({length: 190}, (_, index) =>
        `export function step${index}(value: Record<string, unknown>) { return {...value, step: ${index * 7 % 13}, done: ${index % 2 === 0}}; }`);
    return [{role: "user", content: `Summarise this file in one word:\n\n${lines.join("\n")}`}];
}

const prose = (index: number): ChatMessage[] => [{role: "user", content: `Write a long story about a lighthouse keeper (${index}).`}];
const sampled = (seed: number) => ({temperature: 1, seed});

type Figures = Record<"prose" | "four" | "short" | "repeat", number>;
/** What lookup and its pool drafted in each phase, and how much of it was accepted. */
type Drafts = Record<keyof Figures, {drafted: number, accepted: number}>;

/** The server's drafted and accepted tokens so far, lookup and pool together. */
async function draftCounts(server: Server): Promise<{drafted: number, accepted: number}> {
    const text = await (await fetch(`${server.url.replace(/\/v1$/, "")}/metrics`)).text();
    const sum = (name: string) => text.split("\n").filter((line) => line.startsWith(name) && /source="(lookup|pool)"/.test(line))
        .reduce((total, line) => total + Number(line.split(" ").at(-1)), 0);
    return {drafted: sum("chatserve:spec_decode_num_draft_tokens_total"), accepted: sum("chatserve:spec_decode_num_accepted_tokens_total")};
}

async function phases(server: Server, run: number, drafts: Drafts): Promise<Figures> {
    const chat = (messages: ChatMessage[], maxTokens: number, extra: object) => streamChat(server.url, "bench", messages, maxTokens, extra);
    const counted = async <T>(phase: keyof Figures, work: () => Promise<T>): Promise<T> => {
        const before = await draftCounts(server);
        const result = await work();
        const after = await draftCounts(server);
        drafts[phase].drafted += after.drafted - before.drafted;
        drafts[phase].accepted += after.accepted - before.accepted;
        return result;
    };
    const prosePhase = await counted("prose", async () => decodeTokPerS(await chat(prose(0), 256, sampled(1000 + run))));
    const four = await counted("four", async () => (await Promise.all([1, 2, 3, 4].map((index) => chat(prose(index), 256, sampled(2000 + 10 * run + index))))).map(decodeTokPerS));
    const shorts = await counted("short", async () => {
        const times: number[] = [];
        // The four streams took every sequence: the long prompt is evaluated again once, untimed.
        await chat(longPrompt(), 8, sampled(3999));
        for (let index = 0; index < 5; index++) {
            const result = await chat(longPrompt(), 8, sampled(3000 + 10 * run + index));
            times.push(result.endedAt - result.startedAt);
        }
        return times;
    });
    // The first prose reply's prompt and seed again: the same 256 tokens, seen once before.
    const repeat = await counted("repeat", async () => decodeTokPerS(await chat(prose(0), 256, sampled(1000 + run))));
    return {prose: prosePhase, four: four.reduce((sum, speed) => sum + speed, 0), short: median(shorts), repeat};
}

const servers = [await chatserve(false), await chatserve(true)];
const figures: Array<Record<string, Figures>> = [];
const drafts: Drafts = {prose: {drafted: 0, accepted: 0}, four: {drafted: 0, accepted: 0}, short: {drafted: 0, accepted: 0}, repeat: {drafted: 0, accepted: 0}};
try {
    // Warm-up: the long prompt cached in a sequence, the first decode's one-off costs paid.
    for (const server of servers)
        await streamChat(server.url, "bench", longPrompt(), 8, sampled(1));
    for (let run = 0; run < runs; run++) {
        const order = run % 2 === 0 ? servers : [...servers].reverse();
        const row: Record<string, Figures> = {};
        for (const server of order)
            row[server.name] = await phases(server, run, drafts);
        figures.push(row);
        console.log(`run ${run + 1}: ${JSON.stringify(row)}`);
    }
} finally {
    for (const server of servers)
        await server.stop();
}

const rows: Array<[keyof Figures, string]> = [
    ["prose", "prose, one stream, temperature 1 (decode tokens/s)"], ["four", "four prose streams, temperature 1 (decode tokens/s, summed)"],
    ["short", "8-token reply after a cached ~6k-token prompt (ms, end to end)"], ["repeat", "the first prose reply again, same seed (decode tokens/s)"]
];
console.log(`\nbench model, median of ${runs} runs, lookup off and on taking turns\n`);
console.log("| phase | lookup off | lookup on | on ÷ off (median of the runs' ratios) | drafted (accepted), all runs |");
console.log("|---|---:|---:|---:|---:|");
for (const [key, label] of rows) {
    const off = figures.map((row) => row["lookup off"]![key]);
    const on = figures.map((row) => row["lookup on"]![key]);
    const ratios = on.map((value, index) => value / off[index]!);
    console.log(`| ${label} | ${median(off).toFixed(1)} | ${median(on).toFixed(1)} | ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}) | ${drafts[key].drafted} (${drafts[key].accepted}) |`);
}
await fs.mkdir(path.join(projectRoot, "bench/results"), {recursive: true});
await fs.writeFile(path.join(projectRoot, "bench/results/lookup-cost.json"), JSON.stringify({figures, drafts}, null, 2));
process.exit(0);
