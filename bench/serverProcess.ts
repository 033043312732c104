import {spawn, type ChildProcess} from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {once} from "node:events";
import {projectRoot, type BenchOptions} from "./args.js";

export type ServerProcess = {
    url: string,
    pid: number,
    modelId: string,
    backend: string,
    /** The server runs an OpenMP build of llama.cpp (its banner says so). */
    openmp: boolean,
    threads: number,
    /** Threads for one-token steps (chatserve's --decode-threads). */
    decodeThreads: number,
    banner: string[],
    stop(): Promise<void>
};

const startTimeoutMs = 60_000;

/**
 * Runs chatserve as its own process (`node bin/chatserve.cjs`), so the benchmark client's
 * JavaScript never shares the server's event loop. The models folder is a temporary directory
 * with a link to the one model; `--port 0` picks a free port, read back from the banner.
 * --parallel and --max-queue stay at chatserve's defaults unless `extraArgs` sets them.
 * `companions`: more files linked beside the model under their own names (a vision model's
 * projector, `mmproj-<model>.gguf`, which pairs with the model by that name).
 */
export async function startServerProcess(
    options: Pick<BenchOptions, "modelPath" | "threads" | "decodeThreads" | "flashAttention" | "gpu">,
    extraArgs: readonly string[] = [],
    companions: readonly string[] = []
): Promise<ServerProcess> {
    await fs.access(options.modelPath);
    const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bench-"));
    const fileName = path.basename(options.modelPath);
    await fs.symlink(options.modelPath, path.join(modelsDir, fileName));
    for (const companion of companions)
        await fs.symlink(path.resolve(companion), path.join(modelsDir, path.basename(companion)));

    const args = ["bin/chatserve.cjs", "--models", modelsDir, "--port", "0", "--gpu", options.gpu, "--log-level", "warn"];
    if (options.threads != null)
        args.push("--threads", String(options.threads));
    if (options.decodeThreads != null)
        args.push("--decode-threads", String(options.decodeThreads));
    args.push("--flash-attention", options.flashAttention, ...extraArgs);
    const child = spawn(process.execPath, args, {cwd: projectRoot, stdio: ["ignore", "pipe", "pipe"]});

    const output: string[] = [];
    const remember = (chunk: Buffer) => {
        output.push(...chunk.toString("utf8").split("\n").filter((line) => line !== ""));
        output.splice(0, Math.max(0, output.length - 200));
    };
    child.stdout.on("data", remember);
    child.stderr.on("data", remember);

    const stop = async () => {
        await stopChild(child);
        await fs.rm(modelsDir, {recursive: true, force: true});
    };

    try {
        await waitFor(child, output, () => output.some((line) => line.startsWith("models in ")));
    } catch (error) {
        await stop();
        throw error;
    }

    const url = /chatserve is listening on (http:\/\/\S+\/v1)/.exec(output.join("\n"))?.[1];
    const backendLine = /backend: (\S+) \((OpenMP build, )?(\d+) inference threads?, (\d+) for decoding\)/.exec(output.join("\n"));
    if (url == null || backendLine == null) {
        await stop();
        throw new Error(`could not read the URL and backend from chatserve's banner:\n${output.join("\n")}`);
    }
    return {
        url,
        pid: child.pid!,
        modelId: fileName.replace(/\.gguf$/i, ""),
        backend: backendLine[1]!,
        openmp: backendLine[2] != null,
        threads: Number(backendLine[3]),
        decodeThreads: Number(backendLine[4]),
        banner: [...output],
        stop
    };
}

function waitFor(child: ChildProcess, output: string[], ready: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
        const check = () => {
            if (ready()) {
                cleanup();
                resolve();
            }
        };
        const onExit = (code: number | null) => {
            cleanup();
            reject(new Error(`chatserve exited (code ${code}) before it was ready:\n${output.join("\n")}`));
        };
        const timer = setTimeout(() => {
            cleanup();
            reject(new Error(`chatserve was not ready after ${startTimeoutMs / 1000} s:\n${output.join("\n")}`));
        }, startTimeoutMs);
        const cleanup = () => {
            clearTimeout(timer);
            child.stdout?.off("data", check);
            child.off("exit", onExit);
        };
        child.stdout?.on("data", check);
        child.once("exit", onExit);
        check();
    });
}

/** SIGTERM (chatserve shuts down gracefully), then SIGKILL if it has not exited in 10 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
    if (child.exitCode != null || child.signalCode != null)
        return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
}
