import {Command, InvalidArgumentError, Option} from "commander";
import {
    adminApiKeysFromEnv, apiKeysFromEnv, flashAttentionChoices, gpuChoices, logLevels, modelAliasesFromEnv, resolveConfig, type Config, type ModelAliasSetting
} from "../config.js";
import {kvCacheTypeNames} from "../engine/kvCacheTypes.js";
import {readApiKeyFile} from "./apiKeyFile.js";
import type {KeepAlive} from "../models/keepAlive.js";
import {apiKey, bodyLimit, byteSize, cacheSize, collect, decimal, gracePeriod, integer, keepAlive, modelAlias, pixelCount} from "./serveFlagValues.js";
import {CommandFailure} from "./commandFailure.js";
import {describeStartupFailure} from "./startupFailure.js";

/**
 * `chatserve [serve]`: flags → Config → a running server until a signal. Serving is the default
 * command, so its flags live on the program itself (`chatserve --help` lists them all) and on
 * `chatserve serve` alike.
 */
export function serveCommand(program: Command): Command {
    withServeOptions(program)
        .argument("[command]", "serve (the default), ps, ls, pull or cache", (value: string) => {
            throw new InvalidArgumentError(`unknown command '${value}' (the commands are serve, ps, ls, pull and cache; chatserve --help says more).`);
        })
        .action(async (_command: string | undefined, options: ServeOptions) => serveWith(options));
    withServeOptions(program.command("serve").description("serve the models (the default: `chatserve` alone does the same)"))
        .action(async (options: ServeOptions) => serveWith(options));
    return program;
}

function withServeOptions(command: Command): Command {
    return command
        .addOption(new Option("-m, --models <dir>", "folder of .gguf files (and its direct subfolders)").default("./models").env("CHATSERVE_MODELS"))
        .addOption(new Option("--host <host>", "interface to listen on").default("127.0.0.1").env("CHATSERVE_HOST"))
        .addOption(new Option("-p, --port <port>", "port to listen on").default(8080).argParser(integer(0, 65535)).env("CHATSERVE_PORT"))
        .addOption(new Option("--api-key <key>", "require this bearer key (repeatable; also CHATSERVE_API_KEY / CHATSERVE_API_KEYS)").argParser(apiKey).default([]))
        .addOption(new Option("--api-key-file <path>", "require the bearer keys in this file, one a line (# comments); unlike --api-key, not shown by ps").env("CHATSERVE_API_KEY_FILE"))
        .addOption(new Option("--admin-api-key <key>", "a key that may also load and unload models and send keep_alive; given one, other keys may not (repeatable; also CHATSERVE_ADMIN_API_KEY / CHATSERVE_ADMIN_API_KEYS)").argParser(apiKey).default([]))
        .addOption(new Option("--share-prefix-cache", "with several keys, let their requests reuse each other's cached prompt prefixes (off: each key only its own, so none can read another's prompts from cached_tokens)").default(false))
        .addOption(new Option("--gpu <backend>", "compute backend").choices(gpuChoices).default("auto"))
        .addOption(new Option("-c, --ctx-size <tokens>", "context window per request, capped at the model's trained context (default: the trained context up to 32768, less if memory is short)").argParser(integer(64)))
        .addOption(new Option("-t, --threads <n>", "inference threads (default: the CPU cores available, measured best)").argParser(integer(1)))
        .addOption(new Option("--decode-threads <n>", "threads for generating tokens (default: all of --threads on an OpenMP build, else one fewer)").argParser(integer(1)))
        .addOption(new Option("--no-lookup-decoding", "do not draft tokens from the prompt, the reply so far and earlier requests' text (on by default: verified in the decode loop, the reply is unchanged, and drafting stops for a reply where it does not pay)"))
        .addOption(new Option("--draft-model <file>", "a small model of the same tokenizer (a .gguf, relative to --models or absolute) that drafts tokens for every chat model to verify (the reply is unchanged; chatserve.json's draft per model wins)"))
        .addOption(new Option("--draft-token-cost <share>", "what a drafted token costs as a share of one decoding step, e.g. 0.15, which decides how long drafts are; a drafted pass then costs nothing more (default: both measured per model as it decodes)").argParser(decimal(0.01, 2)))
        .addOption(new Option("--flash-attention <mode>", "llama.cpp's flash attention: auto (on, but a few new tokens after a long context run without it, on chatserve's CPU build), on (every batch) or off").choices(flashAttentionChoices).default("auto"))
        .addOption(new Option("--cache-type-k <type>", "KV cache type for keys, as llama-server names them (also -ctk); q8_0 halves the cache (default: f16; chatserve.json's cache_type_k per model)").choices(kvCacheTypeNames).default("f16"))
        .addOption(new Option("--cache-type-v <type>", "KV cache type for values (also -ctv); a quantized one needs flash attention (default: f16; chatserve.json's cache_type_v per model)").choices(kvCacheTypeNames).default("f16"))
        .addOption(new Option("--parallel <n>", "requests generated at once per model (sequences), each with the whole context (default: 1-4, as half the free memory beside the model holds)").argParser(integer(1, 64)))
        .addOption(new Option("--max-queue <n>", "requests that may wait for a free sequence before 503").default(64).argParser(integer(0)))
        .addOption(new Option("--shutdown-grace <duration>", "on SIGTERM or Ctrl-C, how long running replies may take to finish, e.g. 30s (default: 5s)").argParser(gracePeriod).env("CHATSERVE_SHUTDOWN_GRACE"))
        .addOption(new Option("--memory-limit <size>", "memory the loaded models may take together, e.g. 8GB or 512MiB; idle models are unloaded to make room (default: the memory free at start, less a tenth)").argParser(byteSize).env("CHATSERVE_MEMORY_LIMIT"))
        .addOption(new Option("--no-prompt-cache", "keep no prompt prefixes beyond the sequences' own (neither in RAM nor on disk)"))
        .addOption(new Option("--prompt-cache-ram <size>", "RAM for prompt prefixes kept after their sequence or model moved on, taken from --memory-limit; 0: none (default: an eighth of the memory budget, at most 4GiB)").argParser(cacheSize).env("CHATSERVE_PROMPT_CACHE_RAM"))
        .addOption(new Option("--prompt-cache-dir <dir>", "folder for prompt prefixes kept across restarts (default: chatserve/prompt-cache in the user's cache folder)").env("CHATSERVE_PROMPT_CACHE_DIR"))
        .addOption(new Option("--prompt-cache-size <size>", "disk the prompt cache may take, least recently used out first; 0: no disk tier (default: 10GiB)").argParser(cacheSize).env("CHATSERVE_PROMPT_CACHE_SIZE"))
        .addOption(new Option("--max-loaded-models <n>", "models loaded at once, at most (default: no limit, memory decides)").argParser(integer(1)).env("CHATSERVE_MAX_LOADED_MODELS"))
        .addOption(new Option("--keep-alive <duration>", "unload a model idle this long, e.g. 5m, 30s; 0 after each request; -1 never, not even to make room (default: until its memory is needed)").argParser(keepAlive).env("CHATSERVE_KEEP_ALIVE"))
        .addOption(new Option("--model-alias <name=id>", "serve model ID under another NAME too; '*' in NAME matches anything, e.g. 'claude-*=ID' (repeatable; also CHATSERVE_MODEL_ALIASES)").argParser(modelAlias).default([]))
        .addOption(new Option("--body-limit <size>", "largest request body, e.g. 20MB (default: 8mb; an image sent inline takes 4/3 of its size)").argParser(bodyLimit))
        .addOption(new Option("--allow-private-image-urls", "fetch image URLs from loopback, private and link-local addresses too (off: only public ones)").default(false))
        .addOption(new Option("--max-image-bytes <size>", "largest image, inline or downloaded, e.g. 20MB (default: 10MB)").argParser(byteSize))
        .addOption(new Option("--max-image-pixels <n>", "most pixels per image, as a count or WIDTHxHEIGHT, read from its header before decoding (default: 8192x4096)").argParser(pixelCount))
        .addOption(new Option("--allow-paths-outside-models", "let chatserve.json's chat_template and mmproj name files outside the models folder (off: refused)").default(false))
        .addOption(new Option("--max-images-per-request <n>", "most image parts in one request (default: 16)").argParser(integer(0)))
        .addOption(new Option("--cors-origin <origin>", "allow this browser origin ('*' for any; repeatable); default: localhost pages and editor webviews").argParser(collect).default([]))
        .addOption(new Option("--allowed-host <name>", "answer requests whose Host is NAME (repeatable; '*': any name); default, against DNS rebinding: loopback names, and addresses off loopback; any name off loopback with API keys").argParser(collect).default([]))
        .addOption(new Option("--no-metrics", "do not serve Prometheus metrics at GET /metrics"))
        .addOption(new Option("--metrics-without-key", "serve GET /metrics without a key even when keys are set (for an inference gateway's endpoint picker, which scrapes it with none)").default(false))
        .addOption(new Option("--log-level <level>", "log level").choices(logLevels).default("info"))
        .addOption(new Option("--log-prompts", "log each request's messages or prompt (off by default: prompts are private)").default(false));
}

/** A failure to start is one line that says what to do (a port in use, a models path that is no folder …). */
async function serveWith(options: ServeOptions): Promise<void> {
    try {
        await serve(resolveConfig({
            modelsDir: options.models,
            host: options.host,
            port: options.port,
            apiKeys: [...options.apiKey, ...apiKeysFromEnv(), ...(options.apiKeyFile != null ? readApiKeyFile(options.apiKeyFile) : [])],
            adminApiKeys: [...options.adminApiKey, ...adminApiKeysFromEnv()],
            sharePrefixCache: options.sharePrefixCache,
            gpu: options.gpu,
            ctxSize: options.ctxSize,
            threads: options.threads,
            decodeThreads: options.decodeThreads,
            flashAttention: options.flashAttention,
            lookupDecoding: options.lookupDecoding,
            draftModel: options.draftModel,
            draftTokenCost: options.draftTokenCost,
            cacheTypeK: options.cacheTypeK,
            cacheTypeV: options.cacheTypeV,
            parallel: options.parallel,
            maxQueue: options.maxQueue,
            shutdownGraceMs: options.shutdownGrace,
            memoryLimit: options.memoryLimit,
            maxLoadedModels: options.maxLoadedModels,
            promptCache: options.promptCache,
            promptCacheRam: options.promptCacheRam,
            promptCacheDir: options.promptCacheDir,
            promptCacheSize: options.promptCacheSize,
            keepAlive: options.keepAlive ?? null,
            // A flag's alias replaces the environment's for the same name.
            modelAliases: [...options.modelAlias, ...modelAliasesFromEnv().filter(({name}) => !options.modelAlias.some((flag) => flag.name === name))],
            corsOrigins: options.corsOrigin,
            bodyLimit: options.bodyLimit,
            allowPrivateImageUrls: options.allowPrivateImageUrls,
            allowPathsOutsideModels: options.allowPathsOutsideModels,
            maxImageBytes: options.maxImageBytes,
            maxImagePixels: options.maxImagePixels,
            maxImagesPerRequest: options.maxImagesPerRequest,
            allowedHosts: options.allowedHost,
            logLevel: options.logLevel,
            logPrompts: options.logPrompts,
            metrics: options.metrics,
            metricsWithoutKey: options.metricsWithoutKey
        }));
    } catch (error) {
        throw new CommandFailure(describeStartupFailure(error, options));
    }
}

type ServeOptions = {
    models: string, host: string, port: number, apiKey: string[], gpu: Config["gpu"], ctxSize?: number,
    threads?: number, decodeThreads?: number, flashAttention: Config["flashAttention"], lookupDecoding: boolean, draftModel?: string, draftTokenCost?: number, cacheTypeK: Config["cacheTypeK"], cacheTypeV: Config["cacheTypeV"], parallel?: number, maxQueue: number, shutdownGrace?: number,
    memoryLimit?: number, maxLoadedModels?: number, keepAlive?: KeepAlive,
    promptCache: boolean, promptCacheRam?: number, promptCacheDir?: string, promptCacheSize?: number,
    bodyLimit?: string, allowPrivateImageUrls: boolean, allowPathsOutsideModels: boolean, maxImageBytes?: number, maxImagePixels?: number, maxImagesPerRequest?: number,
    apiKeyFile?: string, adminApiKey: string[], sharePrefixCache: boolean, allowedHost: string[],
    modelAlias: ModelAliasSetting[], corsOrigin: string[], logLevel: Config["logLevel"], logPrompts: boolean, metrics: boolean, metricsWithoutKey: boolean
};

async function serve(config: Config): Promise<void> {
    // Loaded here, not at the top: `chatserve ls` and `ps` need neither the server nor llama.cpp.
    const [{createLogger}, {startServer}, {printBanner}] = await Promise.all([import("../logger.js"), import("../server.js"), import("./banner.js")]);
    const logger = createLogger(config.logLevel);
    const server = await startServer(config, logger);
    printBanner(config, server);

    let signals = 0;
    const shutDown = (signal: NodeJS.Signals) => {
        if (++signals > 1) {
            // A second Ctrl-C does not wait. process.exit() would: its teardown joins the thread
            // computing a prompt batch (seconds on a big model). The signal's own default does not.
            process.removeAllListeners("SIGINT").removeAllListeners("SIGTERM");
            process.kill(process.pid, signal);
            return;
        }
        logger.info({event: "shutdown", signal}, `${signal}: finishing in-flight requests, then exiting`);
        server.close().then(({loadsLeftRunning}) => {
            if (loadsLeftRunning === 0)
                process.exit(0);
            // A load still running (one that hangs): process.exit() would wait for its thread (libuv
            // joins its pool at exit); the signal's default does not.
            process.removeAllListeners("SIGINT").removeAllListeners("SIGTERM");
            process.kill(process.pid, signal);
        }, (error: unknown) => {
            logger.error({event: "shutdown_failed", err: error});
            process.exit(1);
        });
    };
    process.on("SIGINT", shutDown);
    process.on("SIGTERM", shutDown);
}
