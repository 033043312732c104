import {spawn} from "node:child_process";
import type {HttpTarget} from "./httpStreams.js";
import {stopChild} from "./serverProcess.js";

/**
 * llama.cpp's own C++ server as a benchmark reference, at its defaults on one model. Build it from
 * the llama.cpp source node-llama-cpp ships, so both servers run the same engine:
 *   git clone node_modules/node-llama-cpp/llama/gitRelease.bundle /tmp/llama.cpp
 *   cmake -B build -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF && cmake --build build --target llama-server
 */

export type LlamaServer = {target: HttpTarget, stop(): Promise<void>};

/** Takes `--llama-server PATH` out of a benchmark's arguments; the rest are `npm run bench`'s flags. */
export function takeLlamaServerFlag(argv: readonly string[]): {binary: string | undefined, rest: string[]} {
    const at = argv.indexOf("--llama-server");
    if (at < 0)
        return {binary: undefined, rest: [...argv]};
    return {binary: argv[at + 1], rest: argv.filter((_arg, index) => index !== at && index !== at + 1)};
}

export async function startLlamaServer(binary: string, modelPath: string, maxTokens: number): Promise<LlamaServer> {
    const port = 18_000 + Math.floor(Math.random() * 1000);
    const child = spawn(binary, ["-m", modelPath, "--host", "127.0.0.1", "--port", String(port)], {stdio: ["ignore", "ignore", "pipe"]});
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
    return {target: {url: `${url}/v1`, model: "model", maxTokens}, stop: () => stopChild(child)};
}
