import fs from "node:fs/promises";
import path from "node:path";
import {parseBenchArgs, projectRoot} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startFloorProcess, type FloorProcess} from "./floorProcess.js";
import type {FloorRun} from "./inProcessFloor.js";
import {concurrent, conversation, longPrompt, singleStream, warmUp, type HttpTarget} from "./httpStreams.js";
import {machineInfo, measurePhase} from "./machineLoad.js";
import {renderReport} from "./report.js";
import {startServerProcess} from "./serverProcess.js";
import {summarizeResults, type HttpRun, type RawResults} from "./summary.js";

/**
 * `npm run bench`: chatserve over HTTP (a separate server process), and the same model in two
 * floor processes: straight through node-llama-cpp, and through chatserve's engine without HTTP.
 * All stay up; they take turns phase by phase, never working together, so each HTTP ÷ floor pair
 * is measured seconds apart.
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
    let floor: FloorProcess | undefined;
    let engine: FloorProcess | undefined;
    const http: HttpRun[] = [];
    const floorRuns: FloorRun[] = [];
    const engineRuns: FloorRun[] = [];
    let firstRequestMs: number;
    try {
        log(`chatserve at ${server.url} (pid ${server.pid}), ${server.backend}, ${server.threads} threads`);
        const target: HttpTarget = {url: server.url, model: server.modelId, maxTokens: options.maxTokens};
        firstRequestMs = await warmUp(target);
        log(`model loaded and warmed up in ${firstRequestMs.toFixed(0)} ms`);
        log(`starting the in-process floors (${server.threads} threads, ${server.decodeThreads} for decoding) …`);
        const floorOptions = {
            modelPath: options.modelPath,
            gpu: options.gpu,
            threads: server.threads,
            decodeThreads: server.decodeThreads,
            flashAttention: options.flashAttention,
            maxTokens: options.maxTokens,
            longPromptTokens: options.longPromptTokens
        };
        floor = await startFloorProcess("node-llama-cpp", floorOptions);
        engine = await startFloorProcess("engine", floorOptions);
        for (let run = 1; run <= options.runs; run++) {
            log(`run ${run}/${options.runs}: single stream and long prompt (${run % 2 === 1 ? "HTTP, floor, engine" : "engine, floor, HTTP"}), ${options.concurrency} streams, conversation`);
            const [single, {load: floorSingleLoad, ...floorSingle}, {load: engineSingleLoad, ...engineSingle}] = await inTurn(run, [
                () => measurePhase(server.pid, () => singleStream(target, run)), () => floor!.single(run), () => engine!.single(run)
            ]);
            const [long, {load: floorLongLoad, ...floorLong}, {load: engineLongLoad, ...engineLong}] = await inTurn(run, [
                () => measurePhase(server.pid, () => longPrompt(target, run, options.longPromptTokens)), () => floor!.long(run), () => engine!.long(run)
            ]);
            const streams = await measurePhase(server.pid, () => concurrent(target, run, options.concurrency));
            const chat = await measurePhase(server.pid, () => conversation(target, run, options.systemPromptTokens));
            http.push({
                single: single.value,
                long: long.value,
                concurrent: streams.value,
                conversation: chat.value,
                load: {single: single.load, long: long.load, concurrent: streams.load, conversation: chat.load}
            });
            floorRuns.push({single: floorSingle, long: floorLong, load: {single: floorSingleLoad, long: floorLongLoad}});
            engineRuns.push({single: engineSingle, long: engineLong, load: {single: engineSingleLoad, long: engineLongLoad}});
        }
    } finally {
        await floor?.stop();
        await engine?.stop();
        await server.stop();
        log("chatserve and the floors stopped");
    }

    const raw: RawResults = {
        startedAt,
        options,
        machine,
        build,
        server: {backend: server.backend, openmp: server.openmp, threads: server.threads, decodeThreads: server.decodeThreads, modelId: server.modelId, firstRequestMs},
        http,
        floor: {...floor!.info, runs: floorRuns},
        engine: {...engine!.info, runs: engineRuns}
    };
    const summary = summarizeResults(raw);
    await fs.mkdir(path.dirname(options.outFile), {recursive: true});
    await fs.writeFile(options.outFile, JSON.stringify({...raw, summary}, null, 2) + "\n");

    process.stdout.write(renderReport(raw, summary) + "\n");
    log(`results written to ${path.relative(projectRoot, options.outFile)}`);
}

/**
 * Runs the HTTP phase and its two floors one after another, in reverse order every other run, so
 * that none of them always comes first, straight after the last run's heavier phases.
 */
async function inTurn<A, B, C>(run: number, steps: [() => Promise<A>, () => Promise<B>, () => Promise<C>]): Promise<[A, B, C]> {
    const results: unknown[] = [];
    for (const index of run % 2 === 1 ? [0, 1, 2] : [2, 1, 0])
        results[index] = await steps[index]!();
    return results as [A, B, C];
}

main().catch((error: unknown) => {
    console.error("bench failed:", error);
    process.exitCode = 1;
});
