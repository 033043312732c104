import {spawn} from "node:child_process";
import type {HttpTarget} from "./httpStreams.js";
import {stopChild} from "./serverProcess.js";

/**
 * llama.cpp's own C++ server as a benchmark reference, at its defaults on one model. Build it from
 * the llama.cpp source node-llama-cpp ships, so both servers run the same engine:
 *   git clone node_modules/node-llama-cpp/llama/gitRelease.bundle /tmp/llama.cpp
 *   node -e "import('./scripts/amxBuild.mjs').then((amx) => console.log(amx.patchTileConfig('/tmp/llama.cpp/ggml/src/ggml-cpu/amx/mmq.cpp')))"
 *   cd /tmp/llama.cpp && cmake -B build -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF && cmake --build build --target llama-server
 * The second line gives ggml's AMX kernels the fix chatserve's own build has (scripts/amxBuild.mjs):
 * without it, on a CPU with AMX and GCC 12, llama-server dies on its first Q8_0 request (the bench
 * model: a general protection fault in libggml-cpu, 2026-11-27).
 */

export type LlamaServer = {target: HttpTarget, pid: number | undefined, stop(): Promise<void>};

/** Takes `--llama-server PATH` out of a benchmark's arguments; the rest are `npm run bench`'s flags. */
export function takeLlamaServerFlag(argv: readonly string[]): {binary: string | undefined, rest: string[]} {
    const at = argv.indexOf("--llama-server");
    if (at < 0)
        return {binary: undefined, rest: [...argv]};
    return {binary: argv[at + 1], rest: argv.filter((_arg, index) => index !== at && index !== at + 1)};
}

/** `extraArgs`: llama-server flags after the model and address (`-c 32768 -np 1`); none leaves it at its defaults. */
export async function startLlamaServer(binary: string, modelPath: string, maxTokens: number, extraArgs: readonly string[] = []): Promise<LlamaServer> {
    const port = 18_000 + Math.floor(Math.random() * 1000);
    const child = spawn(binary, ["-m", modelPath, "--host", "127.0.0.1", "--port", String(port), ...extraArgs], {stdio: ["ignore", "ignore", "pipe"]});
    // Its log must be read: llama-server blocks once a full pipe stops its log thread (it did, mid-run).
    let logTail = "";
    child.stderr!.on("data", (chunk: Buffer) => logTail = (logTail + chunk.toString("utf8")).slice(-4000));
    // A binary that cannot start (a wrong path) is an error event, not an exit code.
    child.once("error", (error) => logTail += `\n${error.message}`);
    const url = `http://127.0.0.1:${port}`;
    for (let attempt = 0; ; attempt++) {
        const ok = await fetch(`${url}/health`).then((response) => response.ok, () => false);
        if (ok)
            break;
        if (attempt > 600 || child.exitCode != null || child.pid == null) {
            await stopChild(child);
            throw new Error(`llama-server did not become healthy:\n${logTail}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {target: {url: `${url}/v1`, model: "model", maxTokens}, pid: child.pid, stop: () => stopChild(child)};
}
