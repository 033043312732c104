import {parseBenchArgs} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startLlamaServer, takeLlamaServerFlag} from "./llamaServerProcess.js";
import {longContextSuite} from "./longContextPhases.js";
import {comparePaired, startChatserveContender} from "./pairedComparison.js";

/**
 * Long agent prompts against llama.cpp's own server: a ~16k-token first prompt, decode at that
 * depth, and the follow-up turn (longContextPhases.ts), both servers up, taking turns run by run
 * with the order swapped every run (pairedComparison.ts).
 *
 *   npm run bench:long-context -- --llama-server /path/to/llama-server [model.gguf] [--runs N]
 *                                 [--prompt-tokens N] [--ctx-size N] [--max-tokens N] [--tools]
 *
 * Both get one sequence of the same context: chatserve `--ctx-size N --parallel 1`, llama-server
 * `-c N -np 1`, otherwise at their defaults. The default model is the tiny Qwen2.5 (trained for
 * 32k tokens; the SmolLM2-shaped bench model's 8k cannot hold the prompt), whose per-token compute
 * is so cheap that per-batch costs and work that grows with the prompt's square show. `--tools`
 * sends an agent's twelve tools too (see longContextPhases.ts for what that leaves measurable).
 */
const {binary: llamaServerBinary, rest: afterBinary} = takeLlamaServerFlag(process.argv.slice(2));
if (llamaServerBinary == null)
    throw new Error("--llama-server /path/to/llama-server is required (build it as bench/llamaServerProcess.ts says)");
const {value: promptTokens, rest: afterPrompt} = takeCount(afterBinary, "--prompt-tokens", 16_000);
const {value: contextSize, rest: afterContext} = takeCount(afterPrompt, "--ctx-size", 32_768);
const tools = afterContext.includes("--tools");
const rest = afterContext.filter((arg) => arg !== "--tools");
const options = parseBenchArgs(rest, {
    out: "bench/results/long-context.json", runs: 6, model: "../shared/models/tiny-random-qwen2.5-chatml-tools.gguf"
});
ensureBuilt(options.build);

const table = await comparePaired(
    {
        first: () => startChatserveContender("chatserve", options, ["--ctx-size", String(contextSize), "--parallel", "1"]),
        second: async () => ({
            name: "llama-server",
            ...await startLlamaServer(llamaServerBinary, options.modelPath, options.maxTokens, ["-c", String(contextSize), "-np", "1"])
        })
    },
    options,
    (message) => process.stderr.write(`bench: ${message}\n`),
    longContextSuite(promptTokens, {tools})
);
process.stdout.write([
    `## Long agent prompts: chatserve vs llama-server (${options.modelPath}, ~${promptTokens}-token first prompt, ` +
    `${tools ? "twelve tools, " : ""}one sequence of ${contextSize} tokens each, ${options.maxTokens} tokens generated, ${options.runs} runs in turn, medians)`,
    "",
    table
].join("\n"));

/** Takes `flag N` out of the arguments (the rest are `npm run bench`'s flags). */
function takeCount(argv: readonly string[], flag: string, fallback: number): {value: number, rest: string[]} {
    const at = argv.indexOf(flag);
    if (at < 0)
        return {value: fallback, rest: [...argv]};
    const value = Number(argv[at + 1]);
    if (!Number.isInteger(value) || value < 1)
        throw new Error(`${flag} expects a whole number ≥ 1, got '${argv[at + 1]}'`);
    return {value, rest: argv.filter((_arg, index) => index !== at && index !== at + 1)};
}
