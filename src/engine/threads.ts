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

/** A user-chosen count is honoured up to the cores available: more can only be slower. */
export function resolveThreadCount(requested: number | undefined, cpuMathCores: number, available: number = os.availableParallelism()): number {
    if (requested == null)
        return defaultThreadCount(cpuMathCores, available);

    return Math.max(1, Math.min(requested, available));
}
