import fs from "node:fs";
import os from "node:os";
import {setTimeout as sleep} from "node:timers/promises";

/**
 * How busy the machine was, from /proc (Linux; elsewhere every figure is NaN):
 * whole-machine CPU busy % from /proc/stat, the 1-minute load average from /proc/loadavg, and
 * the share of the machine our own processes (the bench client, the server or floor child) used,
 * so that "others" shows whether something else on the machine competed with the measurement.
 * All percentages are of the whole machine (100 % = every core busy).
 */

export type LoadSample = {
    /** Whole-machine CPU busy %, all cores. */
    busyPct: number,
    /** Part of busyPct used by the bench process and the watched child. */
    oursPct: number,
    /** busyPct − oursPct: everything else on the machine. */
    othersPct: number,
    loadavg1: number,
    durationMs: number
};

export type PhaseLoad = {before: LoadSample, during: LoadSample};

type Snapshot = {busy: number, total: number, ours: number, at: number};

function machineTicks(): {busy: number, total: number} {
    try {
        const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!;
        // cpu user nice system idle iowait irq softirq steal (guest time is already in user)
        const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
            line.trim().split(/\s+/).slice(1).map(Number);
        const total = user + nice + system + idle + iowait + irq + softirq + steal;
        return {busy: total - idle - iowait, total};
    } catch {
        return {busy: Number.NaN, total: Number.NaN};
    }
}

/** utime + stime of one process, in the same clock ticks as /proc/stat. */
function processTicks(pid: number | "self"): number {
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        // fields[0] is field 3 (state); utime and stime are fields 14 and 15
        return Number(fields[11]) + Number(fields[12]);
    } catch {
        return 0; // the child has exited
    }
}

function snapshot(childPid: number | undefined): Snapshot {
    const {busy, total} = machineTicks();
    const ours = processTicks("self") + (childPid == null ? 0 : processTicks(childPid));
    return {busy, total, ours, at: performance.now()};
}

function between(start: Snapshot, end: Snapshot): LoadSample {
    const total = end.total - start.total;
    const busyPct = total > 0 ? 100 * (end.busy - start.busy) / total : Number.NaN;
    const oursPct = total > 0 ? 100 * (end.ours - start.ours) / total : Number.NaN;
    return {
        busyPct,
        oursPct,
        othersPct: Math.max(0, busyPct - oursPct),
        loadavg1: os.loadavg()[0] ?? Number.NaN,
        durationMs: end.at - start.at
    };
}

/**
 * Measures the machine for `windowMs` while we do nothing (what is "before" a phase), then runs
 * the phase and measures it too ("during"). `childPid` is the server or floor process.
 */
export async function measurePhase<T>(childPid: number | undefined, phase: () => Promise<T>, windowMs = 1000): Promise<{value: T, load: PhaseLoad}> {
    const idleStart = snapshot(childPid);
    await sleep(windowMs);
    const start = snapshot(childPid);
    const before = between(idleStart, start);
    const value = await phase();
    const during = between(start, snapshot(childPid));
    return {value, load: {before, during}};
}

export function machineInfo() {
    const cpus = os.cpus();
    return {
        availableParallelism: os.availableParallelism(),
        cpuModel: cpus[0]?.model ?? "unknown",
        totalMemoryGiB: Math.round(os.totalmem() / 2 ** 30 * 10) / 10,
        loadavg: os.loadavg(),
        platform: `${os.platform()} ${os.release()}`,
        node: process.version
    };
}
