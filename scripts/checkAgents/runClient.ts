import {spawn} from "node:child_process";
import {mkdir, writeFile} from "node:fs/promises";
import path from "node:path";
import {WORK_FILE, type AgentClient, type ClientSetup} from "./agentClient.js";

export type ClientOutcome = {
    exitCode: number | null,
    signal: string | null,
    timedOut: boolean,
    stdout: string,
    stderr: string,
    ms: number
};

/** Creates the client's own home and work folders under `root`: a fresh project holding WORK_FILE. */
export async function clientFolders(root: string, client: AgentClient): Promise<{home: string, workDir: string}> {
    const home = path.join(root, client.name, "home");
    const workDir = path.join(root, client.name, "work");
    await mkdir(home, {recursive: true});
    await mkdir(workDir, {recursive: true});
    await writeFile(path.join(workDir, WORK_FILE), "This file is here for chatserve's check:agents run.\n");
    return {home, workDir};
}

/**
 * Runs a client in its work folder with no terminal and no stdin, so that nothing can wait for
 * a person, and an environment of its own: not the caller's (no stray API keys or config), HOME
 * and the XDG folders in the client's home, and an HTTP(S) proxy (`refusingProxy`) for anything
 * not on 127.0.0.1, which records where a client tried to go and refuses it. Then its follow-up
 * turns, if it has any, while each run exits 0. Killed with its children once `timeoutMs` is up
 * for all of its runs together.
 */
export async function runClient(client: AgentClient, setup: ClientSetup, refusingProxy: string, timeoutMs: number): Promise<ClientOutcome> {
    const {args, env, followUps = []} = await client.prepare(setup);
    const {home} = setup;
    const proxy = {HTTP_PROXY: refusingProxy, HTTPS_PROXY: refusingProxy, http_proxy: refusingProxy, https_proxy: refusingProxy, ALL_PROXY: refusingProxy, NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost"};
    const fullEnv = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, ".config"),
        XDG_DATA_HOME: path.join(home, ".local", "share"),
        XDG_STATE_HOME: path.join(home, ".local", "state"),
        XDG_CACHE_HOME: path.join(home, ".cache"),
        TMPDIR: process.env.TMPDIR ?? "/tmp",
        LANG: "C.UTF-8",
        TERM: "dumb",
        NO_COLOR: "1",
        ...proxy,
        ...env
    };
    const started = Date.now();
    const outcome: ClientOutcome = {exitCode: null, signal: null, timedOut: false, stdout: "", stderr: "", ms: 0};
    for (const runArgs of [args, ...followUps]) {
        const run = await runOnce(setup.bin, runArgs, setup.workDir, fullEnv, started + timeoutMs - Date.now());
        Object.assign(outcome, {exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut});
        outcome.stdout += run.stdout;
        outcome.stderr += run.stderr;
        if (run.exitCode !== 0 || run.timedOut) break;
    }
    outcome.ms = Date.now() - started;
    // Beside its home and work folders, for a look afterwards (run.ts --keep).
    await writeFile(path.join(path.dirname(home), "stdout.txt"), outcome.stdout);
    await writeFile(path.join(path.dirname(home), "stderr.txt"), outcome.stderr);
    return outcome;
}

type RunResult = Omit<ClientOutcome, "ms">;

async function runOnce(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RunResult> {
    const child = spawn(bin, args, {
        cwd,
        detached: true, // its own process group, so that a timeout ends its children too
        stdio: ["ignore", "pipe", "pipe"],
        env
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => { stdout += chunk.toString("utf8"); });
    child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString("utf8"); });
    let timedOut = false;
    const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child.pid!, "SIGTERM");
        setTimeout(() => killGroup(child.pid!, "SIGKILL"), 5_000).unref();
    }, Math.max(timeoutMs, 0));
    const [exitCode, signal] = await new Promise<[number | null, string | null]>((resolve) => {
        child.once("error", (error) => {
            stderr += `could not start ${bin}: ${error.message}\n`;
            resolve([null, null]);
        });
        child.once("close", (code, sig) => resolve([code, sig]));
    });
    clearTimeout(timer);
    // Whatever it left running in its group (a language server, a shell) goes with it.
    if (child.pid != null) killGroup(child.pid, "SIGKILL");
    return {exitCode, signal, timedOut, stdout, stderr};
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
    try {
        process.kill(-pid, signal);
    } catch {
        // Already gone.
    }
}
