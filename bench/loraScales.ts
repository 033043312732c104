// UV_THREADPOOL_SIZE=1 node --import tsx bench/loraScales.ts [--runs N]   (as bin/chatserve.cjs sizes the pool)
//
// What a request's own LoRA scales cost, on the bench model (SmolLM2-135M's shapes, random weights)
// with a random rank-16 adapter of its shapes (attn_q, attn_v, ffn_down of every layer, as the
// tests' tiny adapter): chatserve serves the file twice, as "base" (no adapter) and "tuned" (the
// adapter at scale 1), four sequences each. Each run, every phase:
//   base        four streams of 128 tokens at once on the base model: summed tokens/s, wall clock
//   one set     the same on the tuned model, all four at its own scale
//   two sets    two streams at scale 1 and two at 0.5: the sets take turns (docs/lora.md)
//   four sets   scales 1, 0.5, 0.25 and 0: one at a time
//   same        eight 16-token replies one after another at one scale: ms per reply
//   alternate   the same eight alternating between two scales: a switch before each (its cost)
// Replies never end early: the model's end-of-turn tokens are banned, so each runs its length.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {readGgufFileInfo} from "node-llama-cpp";
import {resolveConfig} from "../src/config.js";
import {createLogger} from "../src/logger.js";
import {startServer} from "../src/server.js";
import {loraAdapterFile} from "../test/fixtures/gguf/loraAdapter.js";
import {encodeGguf, writeFileAtomic} from "../test/fixtures/gguf/ggufWriter.js";
import {projectRoot} from "./args.js";
import {streamChat, type StreamResult} from "./sse.js";
import {median} from "./stats.js";

const argv = process.argv.slice(2);
const runs = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : 3;
const modelPath = path.resolve(projectRoot, "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf");

type Lora = Array<{id: number, scale: number}>;

async function writeAdapter(file: string): Promise<void> {
    const meta = (await readGgufFileInfo(modelPath, {readTensorInfo: false})).architectureMetadata as unknown as {
        block_count: number, embedding_length: number, feed_forward_length: number, context_length: number, attention: {head_count: number, head_count_kv: number}
    };
    const shape = {
        nEmbd: meta.embedding_length, nLayer: meta.block_count, nHead: meta.attention.head_count, nHeadKv: meta.attention.head_count_kv,
        nFf: meta.feed_forward_length, nCtxTrain: meta.context_length
    };
    await writeFileAtomic(file, encodeGguf(loraAdapterFile({shape, rank: 16})));
}

async function endOfTurnBias(url: string): Promise<Record<string, number>> {
    const bias: Record<string, number> = {};
    for (const marker of ["<|im_end|>", "<|endoftext|>"]) {
        const res = await fetch(`${url.replace(/\/v1$/, "")}/tokenize`, {
            method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({model: "tuned", content: marker})
        });
        const {tokens} = await res.json() as {tokens: number[]};
        if (tokens.length === 1)
            bias[tokens[0]!] = -100;
    }
    return bias;
}

const prompt = (index: number) => [{role: "user" as const, content: `Write a long story about a lighthouse keeper (${index}).`}];

/** Summed tokens per second of streams sent at once: all their tokens over the wall-clock time from the first sent to the last ended. */
function summedTokPerS(results: StreamResult[]): number {
    const tokens = results.reduce((sum, result) => sum + (result.usage?.completion_tokens ?? 0), 0);
    const started = Math.min(...results.map((result) => result.startedAt));
    const ended = Math.max(...results.map((result) => result.endedAt));
    return tokens / ((ended - started) / 1000);
}

async function main(): Promise<void> {
    const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bench-lora-"));
    await fs.symlink(modelPath, path.join(modelsDir, "base.gguf"));
    await fs.symlink(modelPath, path.join(modelsDir, "tuned.gguf"));
    await writeAdapter(path.join(modelsDir, "adapter.gguf"));
    await fs.writeFile(path.join(modelsDir, "chatserve.json"), JSON.stringify({models: {tuned: {lora: [{path: "adapter.gguf"}]}}}));
    const server = await startServer(resolveConfig({modelsDir, port: 0, ctxSize: 2048, parallel: 4, logLevel: "warn", promptCache: false}), createLogger("warn"));
    try {
        const bias = await endOfTurnBias(server.url);
        const stream = (model: string, index: number, maxTokens: number, lora?: Lora) =>
            streamChat(server.url, model, prompt(index), maxTokens, {temperature: 0, logit_bias: bias, ...(lora == null ? {} : {lora})});
        const together = async (model: string, scales: Array<number | undefined>) =>
            summedTokPerS(await Promise.all(scales.map((scale, index) => stream(model, index, 128, scale == null ? undefined : [{id: 0, scale}]))));
        const oneAfterAnother = async (scales: number[]) => {
            const times: number[] = [];
            for (const [index, scale] of scales.entries()) {
                const result = await stream("tuned", index, 16, [{id: 0, scale}]);
                times.push(result.endedAt - result.startedAt);
            }
            return median(times);
        };
        // Warm both models (load, first graphs) before anything is measured.
        await together("base", [undefined]);
        await together("tuned", [undefined, 0.5]);
        const figures: Record<string, number[]> = {};
        const record = (name: string, value: number) => (figures[name] ??= []).push(value);
        for (let run = 0; run < runs; run++) {
            record("base (tok/s)", await together("base", [undefined, undefined, undefined, undefined]));
            record("one set (tok/s)", await together("tuned", [1, 1, 1, 1]));
            record("two sets (tok/s)", await together("tuned", [1, 0.5, 1, 0.5]));
            record("four sets (tok/s)", await together("tuned", [1, 0.5, 0.25, 0]));
            record("same (ms/reply)", await oneAfterAnother([1, 1, 1, 1, 1, 1, 1, 1]));
            record("alternate (ms/reply)", await oneAfterAnother([1, 0.5, 1, 0.5, 1, 0.5, 1, 0.5]));
        }
        console.log(`bench:lora on ${path.basename(modelPath)}, rank-16 adapter, 4 sequences, ${runs} runs (median; each run's figure in brackets)`);
        for (const [name, values] of Object.entries(figures))
            console.log(`  ${name.padEnd(22)} ${median(values).toFixed(1).padStart(8)}   [${values.map((value) => value.toFixed(1)).join(", ")}]`);
    } finally {
        await server.close(1000);
        await fs.rm(modelsDir, {recursive: true, force: true});
    }
}

await main();
