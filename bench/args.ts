import path from "node:path";
import {fileURLToPath} from "node:url";
import {parseArgs} from "node:util";
import {flashAttentionChoices, gpuChoices, type Config} from "../src/config.js";

/** The project root (bench/ lives directly in it). */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export type GpuChoice = Config["gpu"];
export type FlashAttentionChoice = Config["flashAttention"];

export type BenchOptions = {
    modelPath: string,
    runs: number,
    /** undefined: chatserve's own default (the server reports what it chose). */
    threads: number | undefined,
    /** undefined: chatserve's own default. */
    decodeThreads: number | undefined,
    /** chatserve's --flash-attention, for the server and the floor alike. */
    flashAttention: FlashAttentionChoice,
    gpu: GpuChoice,
    quick: boolean,
    /** Run `npm run build` when dist/ is missing or older than src/. */
    build: boolean,
    /** Tokens generated per stream (max_tokens). */
    maxTokens: number,
    /** Approximate prompt sizes, in tokens. */
    longPromptTokens: number,
    systemPromptTokens: number,
    concurrency: number,
    outFile: string
};

const usage = `usage: npm run bench -- [model.gguf] [--model PATH] [--runs N] [--max-tokens N] [--threads N] [--decode-threads N]
                      [--gpu auto|cpu|cuda|metal|vulkan] [--flash-attention auto|on|off] [--quick] [--no-build] [--out FILE]
  model     default ../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf (relative to the project root)
  --runs    measured runs of every phase (default 3; bench:overhead 30); medians and min–max are reported
  --max-tokens  tokens generated per stream (default 128; bench:overhead 256; --quick 32)
  --threads inference threads for the server and the in-process floor (default: chatserve's default)
  --decode-threads  threads for one-token steps, server and floor (default: chatserve's default)
  --flash-attention llama.cpp's flash attention, server and floor (default: auto)
  --quick   a smoke run: fewer generated tokens and shorter prompts
  --no-build  use dist/ as it is, even if src/ is newer
  --out     JSON results (default bench/results/latest.json; bench:llama-server and bench:settings
            write bench/results/versus-llama-server.json, versus-settings.json and overhead.json)`;

/** What a benchmark other than `npm run bench` does without the flags: `out` and `model` relative to the project root. */
export type BenchDefaults = {out?: string, runs?: number, maxTokens?: number, model?: string};

export function parseBenchArgs(argv: readonly string[], defaults: BenchDefaults = {}): BenchOptions {
    const {values, positionals} = parseArgs({
        args: [...argv],
        allowPositionals: true,
        options: {
            model: {type: "string"},
            runs: {type: "string", default: String(defaults.runs ?? 3)},
            "max-tokens": {type: "string"},
            threads: {type: "string"},
            "decode-threads": {type: "string"},
            gpu: {type: "string", default: "auto"},
            "flash-attention": {type: "string", default: "auto"},
            quick: {type: "boolean", default: false},
            "no-build": {type: "boolean", default: false},
            out: {type: "string"},
            help: {type: "boolean", short: "h", default: false}
        }
    });
    if (values.help) {
        console.log(usage);
        process.exit(0);
    }

    const modelArg = values.model ?? positionals[0] ?? defaults.model ?? "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf";
    const gpu = values.gpu as GpuChoice;
    if (!gpuChoices.includes(gpu))
        fail(`--gpu must be one of ${gpuChoices.join(", ")}`);
    const quick = values.quick;
    const flashAttention = values["flash-attention"] as FlashAttentionChoice;
    if (!flashAttentionChoices.includes(flashAttention))
        fail(`--flash-attention must be one of ${flashAttentionChoices.join(", ")}`);

    return {
        modelPath: path.resolve(projectRoot, modelArg),
        runs: positiveInteger("--runs", values.runs),
        threads: values.threads == null ? undefined : positiveInteger("--threads", values.threads),
        decodeThreads: values["decode-threads"] == null ? undefined : positiveInteger("--decode-threads", values["decode-threads"]),
        gpu,
        flashAttention,
        quick,
        build: !values["no-build"],
        maxTokens: values["max-tokens"] != null ? positiveInteger("--max-tokens", values["max-tokens"]) : quick ? 32 : defaults.maxTokens ?? 128,
        longPromptTokens: quick ? 400 : 1500,
        systemPromptTokens: quick ? 300 : 1000,
        concurrency: 4,
        outFile: path.resolve(projectRoot, values.out ?? defaults.out ?? "bench/results/latest.json")
    };
}

function positiveInteger(flag: string, value: string | undefined): number {
    const parsed = Number(value);
    if (value == null || !/^\d+$/.test(value) || parsed < 1)
        fail(`${flag} expects a whole number ≥ 1, got '${value}'`);
    return parsed;
}

function fail(message: string): never {
    console.error(`bench: ${message}\n${usage}`);
    process.exit(2);
}
