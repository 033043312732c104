import os from "node:os";

/**
 * The default number of inference threads.
 *
 * llama.cpp's compute threads spin-wait on each other at every barrier, so one more thread than
 * there are free cores makes every token wait for a preempted thread: measured on a 2-core machine,
 * 50 tok/s at 2 threads and 0.36 tok/s at 4. node-llama-cpp's own default is at least 4, so it must
 * never be left to decide. Math-capable cores (llama.cpp's count, without hyper-threads) is what
 * llama-server uses; the process's available parallelism caps it (containers, taskset).
 */
export function defaultThreadCount(cpuMathCores: number, available: number = os.availableParallelism()): number {
    return Math.max(1, Math.min(cpuMathCores, available));
}

/**
 * Threads for one-token steps. A generated token is followed by work on the server's JS thread and
 * the client's, on the same cores. Without OpenMP, ggml starts fresh compute threads for every step,
 * and one preempted by that work stalls the step: leaving the JS thread a core is faster (on the
 * 2-core bench machine, 1 decode thread gave 102.8 tok/s against 57–69 with 2). An OpenMP build
 * called from one libuv worker keeps one team of threads between steps and decodes faster with all
 * of them (108–124 tok/s with 2 against 91–103 with 1, streamed to curl); called from several
 * workers it gets a team per worker, and 2 decode threads fell to 83–88 against 99–107 with 1.
 */
export function resolveDecodeThreads(requested: number | undefined, threads: number, openmpOnOneWorker: boolean): number {
    return Math.min(threads, requested ?? (openmpOnOneWorker ? threads : Math.max(1, threads - 1)));
}

/** libuv's worker pool size for this process: bin/chatserve.cjs makes it 1 on Linux unless set; libuv's default is 4. */
export function libuvPoolSize(env: NodeJS.ProcessEnv = process.env): number {
    const size = Number(env.UV_THREADPOOL_SIZE);
    return Number.isInteger(size) && size > 0 ? size : 4;
}

/** A user-chosen count is honoured up to the cores available: more can only be slower. */
export function resolveThreadCount(requested: number | undefined, cpuMathCores: number, available: number = os.availableParallelism()): number {
    if (requested == null)
        return defaultThreadCount(cpuMathCores, available);

    return Math.max(1, Math.min(requested, available));
}
