import {execFileSync, spawnSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {parseBenchArgs, projectRoot} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startLlamaServer, takeLlamaServerFlag} from "./llamaServerProcess.js";
import {comparePaired, type Contender} from "./pairedComparison.js";
import {startServerProcess} from "./serverProcess.js";
import {visionSuite} from "./visionPhases.js";
import {freshImage, streamTimed} from "./visionStreams.js";

/**
 * Image input against llama.cpp's own server on the same model and projector, at the same thread
 * count: a one-image request's time to first token (and what the image adds to a text request's),
 * the follow-up turn with the same image, and the stall a text stream sees while another request's
 * image is encoded (visionPhases.ts). Both servers stay up and take turns phase by phase, the
 * order swapped every run (pairedComparison.ts).
 *
 *   npm run bench:vision -- --llama-server /path/to/llama-server [model.gguf] [--mmproj FILE]
 *                           [--runs N] [--threads N] [--max-tokens N] [--stream-tokens N]
 *                           [--chatserve-flags "--decode-threads 1"] [--llama-server-flags "-fa off"]
 *
 * The projector defaults to the one `npm run bench:vision-model` writes for the model (random
 * weights, LLaVA-1.5's shapes: CLIP ViT-L/14 at 336 px, 576 image tokens, Q8_0); it is written
 * first when missing. `--threads` (default: every core) goes to both servers: chatserve
 * `--threads N`, which its projector's encode also uses, and llama-server `-t N -tb N`.
 */
const {binary: llamaServerBinary, rest: afterBinary} = takeLlamaServerFlag(process.argv.slice(2));
if (llamaServerBinary == null)
    throw new Error("--llama-server /path/to/llama-server is required (build it as bench/llamaServerProcess.ts says)");
const {value: mmprojArg, rest: afterMmproj} = takeValue(afterBinary, "--mmproj");
const {value: llamaFlags, rest: afterFlags} = takeValue(afterMmproj, "--llama-server-flags");
const {value: chatserveFlags, rest: afterChatserveFlags} = takeValue(afterFlags, "--chatserve-flags");
const {value: streamTokensArg, rest} = takeValue(afterChatserveFlags, "--stream-tokens");
const options = parseBenchArgs(rest, {out: "bench/results/vision.json", runs: 4, maxTokens: 16});
const threads = options.threads ?? os.availableParallelism();
const streamTokens = Number(streamTokensArg ?? 2000);
if (!Number.isInteger(streamTokens) || streamTokens < 100)
    throw new Error(`--stream-tokens expects a whole number ≥ 100, got '${streamTokensArg}'`);
const stem = path.basename(options.modelPath, ".gguf");
const mmproj = path.resolve(mmprojArg ?? path.join(os.tmpdir(), "chatserve-bench", "vision", `mmproj-${stem}.gguf`));
if (!fs.existsSync(mmproj)) {
    if (mmprojArg != null)
        throw new Error(`no projector at ${mmproj}`);
    console.error(`bench: writing a random-weight projector for ${stem} (npm run bench:vision-model) …`);
    const made = spawnSync(process.execPath, ["--import", "tsx", "bench/visionProjector.ts", "--model", options.modelPath, "--out-dir", path.dirname(mmproj)],
        {cwd: projectRoot, stdio: ["ignore", "ignore", "inherit"]});
    if (made.status !== 0)
        throw new Error("bench/visionProjector.ts failed");
}
const build = ensureBuilt(options.build);
const commit = commitOf();
const extraLlamaFlags = llamaFlags?.split(/\s+/).filter((flag) => flag !== "") ?? [];
const extraChatserveFlags = chatserveFlags?.split(/\s+/).filter((flag) => flag !== "") ?? [];

/** One untimed image request: the projector's first encode (graph allocation, first touch of its weights) is not measured. */
async function warmImage(contender: Contender): Promise<Contender> {
    await streamTimed(contender.target.url, contender.target.model, [{role: "user", content: [{type: "text", text: "warm-up"}, freshImage()]}], 4);
    return contender;
}

let chatserveBackend = "";
const suite = visionSuite({replyTokens: options.maxTokens, streamTokens});
const table = await comparePaired(
    {
        first: async () => {
            const server = await startServerProcess({...options, threads}, extraChatserveFlags, [mmproj]);
            chatserveBackend = server.banner.find((line) => line.startsWith("backend:")) ?? "";
            if (!server.banner.some((line) => line.startsWith("image input:")))
                console.error(`bench: WARNING: chatserve's banner lists no image input:\n${server.banner.join("\n")}`);
            return warmImage({name: "chatserve", target: {url: server.url, model: server.modelId, maxTokens: options.maxTokens}, pid: server.pid, stop: () => server.stop()});
        },
        second: async () => warmImage({
            name: "llama-server",
            ...await startLlamaServer(llamaServerBinary, options.modelPath, options.maxTokens,
                ["--mmproj", mmproj, "-t", String(threads), "-tb", String(threads), ...extraLlamaFlags])
        })
    },
    options,
    (message) => process.stderr.write(`bench: ${message}\n`),
    suite
);

const written = JSON.parse(fs.readFileSync(options.outFile, "utf8")) as object;
fs.writeFileSync(options.outFile, JSON.stringify({
    ...written,
    chatserve: {commit, build, backend: chatserveBackend, flags: [`--threads ${threads}`, ...extraChatserveFlags].join(" ")},
    llamaServer: {binary: llamaServerBinary, flags: ["-t", threads, "-tb", threads, ...extraLlamaFlags].join(" ")},
    projector: mmproj,
    streamTokens
}, null, 2));

process.stdout.write([
    `## Image input: chatserve vs llama-server (${stem} + ${path.basename(mmproj)}, ${threads} threads each` +
    `${extraChatserveFlags.length > 0 ? `, chatserve ${extraChatserveFlags.join(" ")}` : ""}` +
    `${extraLlamaFlags.length > 0 ? `, llama-server ${extraLlamaFlags.join(" ")}` : ""}, ${options.runs} runs in turn, medians)`,
    "",
    `chatserve: ${chatserveBackend}`,
    "",
    table
].join("\n"));

/** `flag VALUE` out of the arguments (the rest are `npm run bench`'s flags). */
function takeValue(argv: readonly string[], flag: string): {value: string | undefined, rest: string[]} {
    const at = argv.indexOf(flag);
    if (at < 0)
        return {value: undefined, rest: [...argv]};
    return {value: argv[at + 1], rest: argv.filter((_arg, index) => index !== at && index !== at + 1)};
}

/** The commit measured, `-dirty` when src/ or native/ had changes not committed. */
function commitOf(): string {
    try {
        const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], {cwd: projectRoot, encoding: "utf8"}).trim();
        const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "native"], {cwd: projectRoot, encoding: "utf8"}).trim() !== "";
        return dirty ? `${head}-dirty` : head;
    } catch {
        return "unknown";
    }
}
