import path from "node:path";
import {Command, Option} from "commander";
import {formatBytes} from "../models/byteSize.js";
import {CommandFailure} from "./commandFailure.js";

/** `chatserve pull SOURCE`: a model from the Hugging Face hub (or any URL) into the models folder. */
export function pullCommand(program: Command): void {
    program.command("pull")
        .description("download a model into the models folder, resuming an interrupted download")
        .argument("<model>", "hf:user/repo:QUANT (e.g. hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M), hf:user/repo/file.gguf, or an http(s) URL of a .gguf file")
        .addOption(new Option("-m, --models <dir>", "folder to download into").default("./models").env("CHATSERVE_MODELS"))
        .addOption(new Option("--hf-endpoint <url>", "the Hugging Face hub or a mirror of it (default: HF_ENDPOINT, else https://huggingface.co)"))
        .showHelpAfterError("(run chatserve pull --help for its options)")
        .action(async (model: string, options: {models: string, hfEndpoint?: string}) => {
            await pull(model, options);
            // The downloader leaves keep-alive connections open (it asks each file's size with a GET
            // whose body it never reads): the process would linger seconds after the work is done.
            process.exit(0);
        });
}

async function pull(model: string, options: {models: string, hfEndpoint?: string}): Promise<void> {
    // Loaded here: node-llama-cpp's downloader is needed by this command only.
    const [{parsePullSource}, {resolveHubEndpoint}, {pullModel}, {PullProgress}] = await Promise.all([
        import("../pull/pullSource.js"), import("../pull/hubListing.js"), import("../pull/pullModel.js"), import("../pull/pullProgress.js")
    ]);
    const interrupted = new AbortController();
    const onSignal = () => interrupted.abort(new CommandFailure(
        "interrupted: what was downloaded is kept in the .partial folder; run the same command again to resume"));
    process.once("SIGINT", onSignal).once("SIGTERM", onSignal);

    const progress = new PullProgress(process.stderr);
    try {
        const hubEndpoint = resolveHubEndpoint(options.hfEndpoint);
        const source = parsePullSource(model, hubEndpoint);
        const result = await pullModel({
            source, modelsDir: options.models, hubEndpoint,
            say: (line) => process.stderr.write(`${line}\n`),
            signal: interrupted.signal,
            onStart: ({downloadedBytes, totalBytes}) => {
                if (downloadedBytes > 0)
                    process.stderr.write(`resuming: ${formatBytes(downloadedBytes)} of ${formatBytes(totalBytes)} were already downloaded\n`);
                progress.update({downloadedBytes, totalBytes});
            },
            onProgress: (state) => progress.update(state),
            onVerify: () => {
                progress.end();
                process.stderr.write("verifying\n");
            }
        });
        progress.end();
        const folder = path.dirname(result.files[0]!);
        const relative = path.relative(process.cwd(), folder);
        const where = relative === "" ? "." : relative.startsWith("..") ? folder : relative;
        const names = result.files.map((file) => path.basename(file)).join(", ");
        process.stdout.write(`${result.alreadyThere ? "already in the models folder" : "pulled"}: ${names} (${formatBytes(result.totalBytes)}) in ${where}\n` +
            (result.id != null ? `model id: ${result.id} (a running chatserve serves it within seconds)\n` : ""));
    } catch (error) {
        progress.end();
        if (interrupted.signal.aborted)
            throw interrupted.signal.reason;
        throw error instanceof CommandFailure ? error : new CommandFailure((error as Error).message ?? String(error));
    } finally {
        process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
    }
}
