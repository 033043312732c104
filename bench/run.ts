import fs from "node:fs/promises";
import path from "node:path";
import {parseBenchArgs, projectRoot} from "./args.js";
import {ensureBuilt} from "./build.js";
import {runFloorProcess} from "./floorProcess.js";
import {concurrent, conversation, longPrompt, singleStream, warmUp, type HttpTarget} from "./httpStreams.js";
import {machineInfo, measurePhase} from "./machineLoad.js";
import {renderReport} from "./report.js";
import {startServerProcess} from "./serverProcess.js";
import {summarizeResults, type HttpRun, type RawResults} from "./summary.js";

/**
 * `npm run bench`: chatserve over HTTP (a separate server process), then the same model straight
 * through node-llama-cpp (a separate floor process), one after the other, never together.
 * Progress goes to stderr; the markdown report to stdout; everything to bench/results/latest.json.
 */

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function main(): Promise<void> {
    const options = parseBenchArgs(process.argv.slice(2));
    const build = ensureBuilt(options.build);
    const machine = machineInfo();
    const startedAt = new Date().toISOString();
    log(`${machine.availableParallelism} cores, load average ${machine.loadavg.map((value) => value.toFixed(2)).join(" ")}; build: ${build}`);

    log("starting the chatserve process …");
    const server = await startServerProcess(options);
    log(`chatserve at ${server.url} (pid ${server.pid}), ${server.backend}, ${server.threads} threads`);
    const target: HttpTarget = {url: server.url, model: server.modelId, maxTokens: options.maxTokens};

    const http: HttpRun[] = [];
    let firstRequestMs: number;
    try {
        firstRequestMs = await warmUp(target);
        log(`model loaded and warmed up in ${firstRequestMs.toFixed(0)} ms`);
        for (let run = 1; run <= options.runs; run++) {
            log(`HTTP run ${run}/${options.runs}: single stream, long prompt, ${options.concurrency} streams, conversation`);
            const single = await measurePhase(server.pid, () => singleStream(target, run));
            const long = await measurePhase(server.pid, () => longPrompt(target, run, options.longPromptTokens));
            const streams = await measurePhase(server.pid, () => concurrent(target, run, options.concurrency));
            const chat = await measurePhase(server.pid, () => conversation(target, run, options.systemPromptTokens));
            http.push({
                single: single.value,
                long: long.value,
                concurrent: streams.value,
                conversation: chat.value,
                load: {single: single.load, long: long.load, concurrent: streams.load, conversation: chat.load}
            });
        }
    } finally {
        await server.stop();
        log("chatserve stopped");
    }

    log(`in-process floor (${server.threads} threads, ${server.decodeThreads} for decoding), ${options.runs} run${options.runs === 1 ? "" : "s"} …`);
    const floor = await runFloorProcess({
        modelPath: options.modelPath,
        gpu: options.gpu,
        threads: server.threads,
        decodeThreads: server.decodeThreads,
        flashAttention: options.flashAttention,
        runs: options.runs,
        maxTokens: options.maxTokens,
        longPromptTokens: options.longPromptTokens
    });

    const raw: RawResults = {
        startedAt,
        options,
        machine,
        build,
        server: {backend: server.backend, openmp: server.openmp, threads: server.threads, decodeThreads: server.decodeThreads, modelId: server.modelId, firstRequestMs},
        http,
        floor
    };
    const summary = summarizeResults(raw);
    await fs.mkdir(path.dirname(options.outFile), {recursive: true});
    await fs.writeFile(options.outFile, JSON.stringify({...raw, summary}, null, 2) + "\n");

    process.stdout.write(renderReport(raw, summary) + "\n");
    log(`results written to ${path.relative(projectRoot, options.outFile)}`);
}

main().catch((error: unknown) => {
    console.error("bench failed:", error);
    process.exitCode = 1;
});
