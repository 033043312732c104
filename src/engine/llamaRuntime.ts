import os from "node:os";
import {getLlama, LlamaLogLevel, type Llama} from "node-llama-cpp";
import type {Logger} from "pino";
import type {Config} from "../config.js";
import {LlamaErrorLog} from "./llamaErrorLog.js";
import {usesOpenMP} from "./openmp.js";
import type {SpeculationSettings} from "./speculation/speculationPlan.js";
import {libuvPoolSize, resolveDecodeThreads, resolveThreadCount} from "./threads.js";
import {ImageDecodePool, imageDecodeConcurrency} from "./vision/imageDecodePool.js";
import {visionSupport} from "./vision/nativeVision.js";

export type Backend = "CPU" | "CUDA" | "Metal" | "Vulkan";

export type LlamaRuntime = {
    llama: Llama,
    backend: Backend,
    /** llama.cpp was built with OpenMP (a source build; the prebuilt CPU binaries are not). */
    openmp: boolean,
    /** Inference threads every context of this runtime uses (prompt processing). */
    threads: number,
    /** Threads for one-token steps: generating a single stream. */
    decodeThreads: number,
    /** node-llama-cpp's context option for llama.cpp's flash attention. */
    flashAttention: "auto" | boolean,
    /** How generations draft tokens to verify (engine/speculation/); absent: from a request's prediction only. */
    speculation?: SpeculationSettings,
    /** What llama.cpp logged as errors lately: a failed load's reason. */
    errors: LlamaErrorLog,
    /** Memory free when the server started, which default contexts are sized to (models/contextPlan.ts). */
    freeMemoryBytes: number,
    /** Whether this llama.cpp build can load vision projectors, and if not, why. */
    vision: ReturnType<typeof visionSupport>,
    /** Image decodes for every model's projector: a few at a time, the rest queued as --max-queue allows (no limit without one). */
    imageDecodes: ImageDecodePool
};

/**
 * Starts llama.cpp through node-llama-cpp with the requested backend.
 * `build: "never"`: the server must never start compiling llama.cpp (or download its source)
 * at run time; the prebuilt binaries that npm installed are used, or it fails with a clear message.
 */
export async function startLlamaRuntime(config: Pick<Config, "gpu" | "threads" | "decodeThreads" | "flashAttention"> & Partial<Pick<Config, "maxQueue" | "lookupDecoding" | "draftTokenCost">>, logger: Logger): Promise<LlamaRuntime> {
    const llamaLog = logger.child({component: "llama.cpp"});
    const errors = new LlamaErrorLog();
    const llama = await getLlama({
        gpu: config.gpu === "cpu" ? false : config.gpu,
        build: "never",
        logLevel: LlamaLogLevel.warn,
        logger: (level, message) => {
            const text = message.trim();
            if (text === "")
                return;
            if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) {
                errors.push(text);
                llamaLog.error(text);
            }
            else
                llamaLog.debug(text);
        },
        // Threads are decided here, not by node-llama-cpp (whose CPU default is at least 4).
        maxThreads: 0
    });
    const threads = resolveThreadCount(config.threads, llama.cpuMathCores);
    const openmp = usesOpenMP();
    return {
        llama,
        backend: backendName(llama.gpu),
        openmp,
        threads,
        decodeThreads: resolveDecodeThreads(config.decodeThreads, threads, openmp && libuvPoolSize() === 1),
        flashAttention: flashAttentionOption(config.flashAttention),
        speculation: {lookup: config.lookupDecoding ?? true, ...(config.draftTokenCost == null ? {} : {draftTokenCost: config.draftTokenCost})},
        errors,
        freeMemoryBytes: await freeMemory(llama),
        vision: visionSupport(llama),
        imageDecodes: new ImageDecodePool(imageDecodeConcurrency(threads), config.maxQueue ?? Infinity)
    };
}

/**
 * Where a model's KV cache will live: free VRAM on a GPU backend (on Apple silicon, the unified
 * memory's share the GPU may use), else the RAM this process may still take (a container's
 * memory limit included, which os.freemem() ignores).
 */
async function freeMemory(llama: Llama): Promise<number> {
    if (llama.gpu !== false)
        return (await llama.getVramState()).free;
    return typeof process.availableMemory === "function" ? process.availableMemory() : os.freemem();
}

/** chatserve's `--flash-attention` as node-llama-cpp's context option. */
export function flashAttentionOption(mode: Config["flashAttention"]): "auto" | boolean {
    return mode === "auto" ? "auto" : mode === "on";
}

function backendName(gpu: Llama["gpu"]): Backend {
    switch (gpu) {
        case false: return "CPU";
        case "cuda": return "CUDA";
        case "metal": return "Metal";
        case "vulkan": return "Vulkan";
    }
    return gpu satisfies never;
}
