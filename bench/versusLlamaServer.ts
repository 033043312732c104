import {parseBenchArgs, type BenchOptions} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startLlamaServer, takeLlamaServerFlag} from "./llamaServerProcess.js";
import {comparePaired, startChatserveContender} from "./pairedComparison.js";

/**
 * chatserve against llama.cpp's own C++ server on the same model, both at their defaults, taking
 * turns phase by phase (see pairedComparison.ts).
 *
 *   npm run bench:llama-server -- --llama-server /path/to/llama-server [model.gguf] [--runs N]
 *
 * Build llama-server as llamaServerProcess.ts says, from the source node-llama-cpp ships.
 */
const {binary: llamaServerBinary, rest} = takeLlamaServerFlag(process.argv.slice(2));
if (llamaServerBinary == null)
    throw new Error("--llama-server /path/to/llama-server is required");
const options = parseBenchArgs(rest, {out: "bench/results/versus-llama-server.json"});
ensureBuilt(options.build);

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
    {first: () => startChatserveContender("chatserve", options), second: async () => ({name: "llama-server", ...await startLlamaServer(llamaServerBinary, options.modelPath, options.maxTokens)})},
    options,
    (message) => process.stderr.write(`bench: ${message}\n`)
);
process.stdout.write([
    `## chatserve vs llama-server (${options.modelPath}, ${chatserveSettings(options)}, llama-server at its defaults, ` +
    `${options.runs} runs, phase by phase in turn, medians)`,
    "",
    table
].join("\n"));
