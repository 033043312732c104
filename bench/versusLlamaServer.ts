import {spawn} from "node:child_process";
import {parseBenchArgs, type BenchOptions} from "./args.js";
import {ensureBuilt} from "./build.js";
import {comparePaired, startChatserveContender, type Contender} from "./pairedComparison.js";
import {stopChild} from "./serverProcess.js";

/**
 * chatserve against llama.cpp's own C++ server on the same model, both at their defaults, taking
 * turns phase by phase (see pairedComparison.ts).
 *
 *   npm run bench:llama-server -- --llama-server /path/to/llama-server [model.gguf] [--runs N]
 *
 * Build llama-server from the llama.cpp source node-llama-cpp ships, so both run the same engine:
 *   git clone node_modules/node-llama-cpp/llama/gitRelease.bundle /tmp/llama.cpp
 *   cmake -B build -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF && cmake --build build --target llama-server
 */
const argv = process.argv.slice(2);
const flagAt = argv.indexOf("--llama-server");
const llamaServerBinary = flagAt >= 0 ? argv[flagAt + 1] : undefined;
if (llamaServerBinary == null)
    throw new Error("--llama-server /path/to/llama-server is required");
// Everything else is `npm run bench`'s own flags.
const options = parseBenchArgs(argv.filter((_arg, index) => index !== flagAt && index !== flagAt + 1), {out: "bench/results/versus-llama-server.json"});
ensureBuilt(options.build);

async function startLlamaServer(binary: string): Promise<Contender> {
    const port = 18_000 + Math.floor(Math.random() * 1000);
    const child = spawn(binary, ["-m", options.modelPath, "--host", "127.0.0.1", "--port", String(port)], {stdio: ["ignore", "ignore", "pipe"]});
    // Its log must be read: llama-server blocks once a full pipe stops its log thread (it did, mid-run).
    let logTail = "";
    child.stderr!.on("data", (chunk: Buffer) => logTail = (logTail + chunk.toString("utf8")).slice(-4000));
    const url = `http://127.0.0.1:${port}`;
    for (let attempt = 0; ; attempt++) {
        const ok = await fetch(`${url}/health`).then((response) => response.ok, () => false);
        if (ok)
            break;
        if (attempt > 600 || child.exitCode != null) {
            await stopChild(child);
            throw new Error(`llama-server did not become healthy:\n${logTail}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {name: "llama-server", target: {url: `${url}/v1`, model: "model", maxTokens: options.maxTokens}, stop: () => stopChild(child)};
}

function chatserveSettings(benchOptions: BenchOptions): string {
    const flags = [
        benchOptions.threads != null ? `--threads ${benchOptions.threads}` : "",
        benchOptions.decodeThreads != null ? `--decode-threads ${benchOptions.decodeThreads}` : "",
        benchOptions.flashAttention !== "auto" ? `--flash-attention ${benchOptions.flashAttention}` : "",
        process.env.UV_THREADPOOL_SIZE != null ? `UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE}` : ""
    ].filter((flag) => flag !== "");
    return flags.length === 0 ? "chatserve at its defaults" : `chatserve with ${flags.join(" ")}`;
}

const table = await comparePaired(
    {first: () => startChatserveContender("chatserve", options), second: () => startLlamaServer(llamaServerBinary)},
    options,
    (message) => process.stderr.write(`bench: ${message}\n`)
);
process.stdout.write([
    `## chatserve vs llama-server (${options.modelPath}, ${chatserveSettings(options)}, llama-server at its defaults, ` +
    `${options.runs} runs, phase by phase in turn, medians)`,
    "",
    table
].join("\n"));
