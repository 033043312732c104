// KV-cache types at a long context: `npm run bench:kv-cache-types -- [model.gguf] [--tokens N] [--types f16,q8_0] [--threads N]`.
//
// For each type (keys and values alike), one child process (so one type's buffers never count in
// the next's figures) loads the model through node-llama-cpp, creates one sequence of `--tokens`
// + 256 cells with that KV-cache type and flash attention on (a quantized V cache needs it; f16
// gets the same, so only the type differs), evaluates a prompt of `--tokens` tokens and then
// decodes 64 tokens greedily at that depth. It reports llama.cpp's own account of the context
// (KV cache and compute buffers), the process's resident memory before and after, the prompt's
// and the decode's tokens per second.
//
// Then the context chatserve's defaults give an agent prompt with each type: models/contextPlan.ts
// planning the model (no --ctx-size, --parallel 1) under a memory budget whose f16 cache holds
// 8k tokens, as on a machine where memory is the limit. The SmolLM2-135M-shaped bench model is
// trained for 8k tokens, so it is planned as if trained for 128k: the plan then shows what the
// budget, not the training, allows.
//
// Results go to stdout as markdown and to bench/results/kv-cache-types.json. Run it alone
// (`flock /tmp/chatserve-e2e.lock npm run bench:kv-cache-types`): it measures speed.
import {spawnSync} from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {getLlama, readGgufFileInfo, type Token} from "node-llama-cpp";
import {ggmlTypeName, kvCacheTypeNames, type KvCacheType} from "../src/engine/kvCacheTypes.js";
import {planContext} from "../src/models/contextPlan.js";
import {kvCacheEstimate} from "../src/models/kvCacheEstimate.js";

const projectRoot = fileURLToPath(new URL("..", import.meta.url));
const MiB = 1024 * 1024;
const decodeTokens = 64;

type Measured = {type: KvCacheType, contextCells: number, contextMemoryMiB: number, rssBeforeMiB: number, rssAfterMiB: number, promptTokensPerSecond: number, decodeTokensPerSecond: number};

function option(args: string[], name: string, fallback: string): string {
    const index = args.indexOf(name);
    return index >= 0 && args[index + 1] != null ? args[index + 1]! : fallback;
}

function rssMiB(): number {
    const status = fs.readFileSync("/proc/self/status", "utf8");
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** One type, in this process: what the child runs. */
async function measure(modelPath: string, type: KvCacheType, tokens: number, threads: number): Promise<Measured> {
    const llama = await getLlama({gpu: false, build: "never"});
    const model = await llama.loadModel({modelPath});
    const rssBefore = rssMiB();
    const context = await model.createContext({
        contextSize: tokens + 256, sequences: 1, threads, flashAttention: true, ignoreMemorySafetyChecks: true,
        experimentalKvCacheKeyType: ggmlTypeName(type), experimentalKvCacheValueType: ggmlTypeName(type)
    });
    const sequence = context.getSequence();
    // Ordinary tokens (past the control tokens at the start of the vocabulary), varied, reproducible.
    const vocabulary = model.tokens.bos == null ? 0 : 1;
    const prompt = Array.from({length: tokens}, (_, index) => (vocabulary + 200 + (index * 7919) % 40_000) as Token);
    const promptStart = performance.now();
    await sequence.evaluateWithoutGeneratingNewTokens(prompt);
    const promptSeconds = (performance.now() - promptStart) / 1000;
    let generated = 0;
    const decodeStart = performance.now();
    for await (const _token of sequence.evaluate([prompt.at(-1)!], {temperature: 0})) {
        if (++generated >= decodeTokens)
            break;
    }
    const decodeSeconds = (performance.now() - decodeStart) / 1000;
    const result: Measured = {
        type, contextCells: context.contextSize, contextMemoryMiB: (context.memoryUsage?.ram ?? Number.NaN) / MiB,
        rssBeforeMiB: rssBefore, rssAfterMiB: rssMiB(),
        promptTokensPerSecond: tokens / promptSeconds, decodeTokensPerSecond: generated / decodeSeconds
    };
    await context.dispose();
    await model.dispose();
    return result;
}

/** The default context planned for the model with each type, under a budget whose f16 cache holds `f16Tokens`. */
async function plannedContexts(modelPath: string, types: readonly KvCacheType[], f16Tokens: number) {
    const llama = await getLlama({gpu: false, build: "never"});
    const info = await readGgufFileInfo(modelPath, {readTensorInfo: true});
    const estimate = (await kvCacheEstimate(info, llama))!;
    const sizeBytes = fs.statSync(modelPath).size;
    // planContext gives the KV cache half of what the weights leave: a budget where f16 fits `f16Tokens`.
    const freeMemoryBytes = sizeBytes + 2 * estimate(f16Tokens, 1);
    return types.map((type) => {
        const plan = planContext({trainedContextLength: 131072, sizeBytes, capabilities: ["chat"], kvCache: estimate},
            {parallel: 1, freeMemoryBytes, kvCacheTypes: {k: type, v: type}});
        return {type, freeMemoryMiB: freeMemoryBytes / MiB, contextLength: plan.contextLength, kvCacheMiB: (plan.kvCacheBytes ?? 0) / MiB};
    });
}

const args = process.argv.slice(2);
const modelPath = path.resolve(args.find((arg) => arg.endsWith(".gguf")) ?? path.join(projectRoot, "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf"));
const tokens = Number(option(args, "--tokens", "16384"));
const threads = Number(option(args, "--threads", "2"));
const types = option(args, "--types", "f16,q8_0").split(",") as KvCacheType[];
for (const type of types)
    if (!kvCacheTypeNames.includes(type))
        throw new Error(`--types: '${type}' is not one of ${kvCacheTypeNames.join(", ")}`);

if (args[0] === "--child") {
    process.stdout.write(JSON.stringify(await measure(modelPath, types[0]!, tokens, threads)));
} else {
    const measured: Measured[] = [];
    for (const type of types) {
        process.stderr.write(`${type}: ${tokens} tokens...\n`);
        const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", modelPath,
            "--tokens", String(tokens), "--threads", String(threads), "--types", type], {cwd: projectRoot, encoding: "utf8", maxBuffer: 16 * MiB});
        if (child.status !== 0)
            throw new Error(`the ${type} run failed: ${child.stderr}`);
        measured.push(JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Measured);
    }
    const plans = await plannedContexts(modelPath, types, 8192);
    const lines = [
        `## KV-cache types: ${path.basename(modelPath)}, ${tokens} tokens, ${threads} threads, flash attention on`, "",
        "| type | context (llama.cpp) | RSS growth | prompt tok/s | decode tok/s at depth |",
        "|---|---|---|---|---|",
        ...measured.map((m) => `| ${m.type} | ${m.contextMemoryMiB.toFixed(1)} MiB | ${(m.rssAfterMiB - m.rssBeforeMiB).toFixed(1)} MiB | ${m.promptTokensPerSecond.toFixed(0)} | ${m.decodeTokensPerSecond.toFixed(1)} |`),
        "", `## Default context for an agent prompt, one sequence, ${plans[0]!.freeMemoryMiB.toFixed(0)} MiB free (an f16 cache holds 8192 tokens)`, "",
        "| type | default context | its KV cache |", "|---|---|---|",
        ...plans.map((plan) => `| ${plan.type} | ${plan.contextLength} tokens | ${plan.kvCacheMiB.toFixed(1)} MiB |`)
    ];
    console.log(lines.join("\n"));
    fs.mkdirSync(path.join(projectRoot, "bench/results"), {recursive: true});
    fs.writeFileSync(path.join(projectRoot, "bench/results/kv-cache-types.json"), JSON.stringify({model: path.basename(modelPath), tokens, threads, measured, plans}, null, 2) + "\n");
}
