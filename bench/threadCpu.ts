import {readFileSync} from "node:fs";

/**
 * CPU time, for the share of a token's time that a server's per-token work takes on the cores the
 * decode needs. Throughput ratios on this machine move by several percent from pair to pair; CPU
 * time spent per token by one thread hardly does.
 */

/** Nanoseconds a thread has run on a CPU so far (Linux `/proc/PID/task/TID/schedstat`); NaN where that cannot be read. A process's main thread has its pid as TID. */
export function threadRunNs(pid: number, tid: number = pid): number {
    try {
        return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
        return Number.NaN;
    }
}

/** This process's own CPU time so far (user and system), in nanoseconds. */
export function ownCpuNs(): number {
    const {user, system} = process.cpuUsage();
    return 1000 * (user + system);
}

/** Runs `work` and returns its value with how much CPU each clock spent meanwhile. */
export async function withCpu<T>(clocks: {[name: string]: () => number}, work: () => Promise<T>): Promise<{value: T, spentNs: {[name: string]: number}}> {
    const before = Object.fromEntries(Object.entries(clocks).map(([name, clock]) => [name, clock()]));
    const value = await work();
    const spentNs = Object.fromEntries(Object.entries(clocks).map(([name, clock]) => [name, clock() - before[name]!]));
    return {value, spentNs};
}
