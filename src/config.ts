import {z} from "zod";
import {isQuantized, kvCacheTypeNames} from "./engine/kvCacheTypes.js";

/**
 * Every setting chatserve has, with its default, in one place.
 * CLI flags and environment variables map onto this schema (src/cli/serveCommand.ts);
 * tests build it directly with `resolveConfig({...})`.
 */
export const gpuChoices = ["auto", "cuda", "metal", "vulkan", "cpu"] as const;
export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export const flashAttentionChoices = ["auto", "on", "off"] as const;

export const configSchema = z.object({
    /** Folder scanned for `*.gguf` files (and its direct subfolders). */
    modelsDir: z.string().default("./models"),
    host: z.string().default("127.0.0.1"),
    /**
     * Names the server answers to besides the loopback ones (`--allowed-host`): every other `Host`
     * is refused, against DNS rebinding, on a loopback bind and on any bind without API keys;
     * `*` accepts every name (http/hostCheck.ts).
     */
    allowedHosts: z.array(z.string().min(1)).default([]),
    /** 0 picks a free port (tests). */
    port: z.number().int().min(0).max(65535).default(8080),
    /** Bearer keys; empty means no authentication. Holds the admin keys too (resolveConfig adds them). */
    apiKeys: z.array(z.string().min(1)).default([]),
    /**
     * Keys that may also change what is loaded for everyone (`--admin-api-key`): load and unload
     * models, and send `keep_alive` (pin a model, or unload it after a request). Given any, other
     * keys may not (http/adminOnly.ts); given none, every key may, as before.
     */
    adminApiKeys: z.array(z.string().min(1)).default([]),
    /**
     * With several keys, whether their requests share cached prompt prefixes (and decoded images).
     * Off by default: each key reuses only its own, or another key's client could read a prompt a
     * token at a time from `cached_tokens` (http/cachePartition.ts). On suits one team's server.
     */
    sharePrefixCache: z.boolean().default(false),
    gpu: z.enum(gpuChoices).default("auto"),
    /**
     * Context window per request (per sequence), in tokens; capped at what the model was trained on.
     * Undefined: per model, its trained context up to 32768, shrunk if need be to fit the memory
     * budget (models/contextPlan.ts).
     */
    ctxSize: z.number().int().min(64).optional(),
    /** Inference threads; undefined means the measured default (see engine/threads.ts). */
    threads: z.number().int().min(1).optional(),
    /** Threads for one-token steps (generation); undefined: the measured default (see engine/threads.ts). */
    decodeThreads: z.number().int().min(1).optional(),
    /** llama.cpp's flash attention; `auto` lets llama.cpp decide (on for the CPU). */
    flashAttention: z.enum(flashAttentionChoices).default("auto"),
    /**
     * Draftless lookup decoding (engine/speculation/): drafts from the prompt and the reply so far,
     * and from the model's pool of earlier requests' text, verified in the decode loop. On by
     * default: where text does not repeat it drafts next to nothing and its bookkeeping is a fraction
     * of a millisecond a request, so replies are no slower, and where text repeats (an agent's
     * rewrite of a file it read) decoding runs several times as fast (docs/speculative-decoding.md).
     * chatserve.json's lookup_decoding wins per model. A request's own prediction drafts either way.
     */
    lookupDecoding: z.boolean().default(true),
    /**
     * A draft model for speculative decoding (engine/speculation/draftModel.ts): a GGUF file, relative
     * to the models folder or absolute, loaded beside every chat model but itself whose tokenizer it
     * shares (one whose tokenizer differs serves without it, and /v1/models says why); chatserve.json's
     * `draft` per model wins. llama-server's --model-draft (-md), for a folder of models.
     */
    draftModel: z.string().min(1).optional(),
    /**
     * What a drafted token costs, as a share of a plain decoding step: it decides how long a draft is
     * worth (engine/speculation/draftLength.ts). Undefined: each model's decode loop measures it as it
     * decodes, from 0.15 (engine/speculation/draftCostEstimate.ts), since it ranges from ~0.3 on a
     * 135M model on 2 cores to ~0.4–0.7 on a 260K one (docs/speculative-decoding.md). Fixed, drafts are the same on every machine: for benchmarks
     * and for tests that pin what drafts do.
     */
    draftTokenCost: z.number().min(0.01).max(2).optional(),
    /**
     * What every model's KV cache stores keys and values as (llama-server's `--cache-type-k` /
     * `--cache-type-v` names); chatserve.json's cache_type_k / cache_type_v per model win.
     * q8_0 halves an f16 cache; a quantized V cache needs flash attention (engine/kvCacheTypes.ts).
     */
    cacheTypeK: z.enum(kvCacheTypeNames).default("f16"),
    cacheTypeV: z.enum(kvCacheTypeNames).default("f16"),
    /** Sequences per loaded model: how many requests generate at once. Undefined: per model, 1–4 as memory allows. */
    parallel: z.number().int().min(1).max(64).optional(),
    /** Requests that may wait for a free sequence before new ones get 503. */
    maxQueue: z.number().int().min(0).default(64),
    /**
     * On SIGTERM or Ctrl-C, how long replies already running may take to finish before they are cut
     * with a shutting_down error (`--shutdown-grace`). A rolling restart behind a balancer waits this
     * long at most per replica; Kubernetes' terminationGracePeriodSeconds must be longer.
     */
    shutdownGraceMs: z.number().int().min(0).default(5000),
    /**
     * What the loaded models may take in memory together, in bytes (weights, KV caches, buffers; RAM and
     * VRAM counted together). Undefined: the memory free at start (VRAM on a GPU backend) less a tenth.
     */
    memoryLimit: z.number().int().min(1).optional(),
    /** Models loaded at once, at most. Undefined: no count limit (memory decides). */
    maxLoadedModels: z.number().int().min(1).optional(),
    /**
     * How long a model stays loaded once idle (models/keepAlive.ts): `{ms: 0}` unloads it after each
     * request, "forever" never (not even to make room). Null: until its memory is needed for another model.
     */
    keepAlive: z.union([z.object({ms: z.number().int().min(0)}), z.literal("forever")]).nullable().default(null),
    /** How long a request waits for room in memory (for busy models to end their requests) before its 503 insufficient_memory. */
    memoryWaitMs: z.number().int().min(0).default(120_000),
    /**
     * The prompt cache (engine/promptCache/, docs/prompt-cache.md): prompt prefixes' KV states kept
     * after their sequence is needed for another conversation or their model is unloaded, in RAM and
     * on disk, and restored instead of evaluated (--no-prompt-cache: off).
     */
    promptCache: z.boolean().default(true),
    /**
     * Its RAM tier, in bytes; taken out of the memory budget the models share, and at most half of it.
     * 0: none. Undefined: an eighth of the budget, at most 4 GiB.
     */
    promptCacheRam: z.number().int().min(0).optional(),
    /** Its disk tier's folder. Undefined: chatserve/prompt-cache in the user's cache folder ($XDG_CACHE_HOME or ~/.cache on Linux). */
    promptCacheDir: z.string().min(1).optional(),
    /** What the disk tier may take, in bytes, least recently used files out first; 0: no disk tier. */
    promptCacheSize: z.number().int().min(0).default(10 * 2 ** 30),
    /**
     * Allowed browser origins. The default allows any origin whose host is the loopback
     * interface (webviews, local web UIs) and refuses web pages on the internet.
     */
    corsOrigins: z.array(z.string()).default([]),
    logLevel: z.enum(logLevels).default("info"),
    /** Count requests, tokens and latencies and serve them at `GET /metrics` (--no-metrics: off). */
    metrics: z.boolean().default(true),
    /**
     * Serve `GET /metrics` without a key even when keys are set (`--metrics-without-key`): an inference
     * gateway's endpoint picker scrapes the queue and KV-cache gauges with no way to send one.
     */
    metricsWithoutKey: z.boolean().default(false),
    /** Log prompt and completion text (off by default: prompts are the user's data). */
    logPrompts: z.boolean().default(false),
    /** Other names for models (`--model-alias NAME=ID`); NAME may hold `*` wildcards (models/modelAliases.ts). */
    modelAliases: z.array(z.object({
        name: z.string().min(1),
        model: z.string().min(1).refine((model) => !model.includes("*"), "a model id cannot hold '*'; only the alias's name can")
    })).default([]),
    /** Largest JSON body accepted. An image sent as a data: URI takes 4/3 of its bytes in it. */
    bodyLimit: z.string().default("8mb"),
    /** Fetch image URLs from loopback, private and link-local addresses too (images/addressRanges.ts); off, a LAN server is no way into its LAN. */
    allowPrivateImageUrls: z.boolean().default(false),
    /** Bytes per image, inline or downloaded: llama-server's download cap. */
    maxImageBytes: z.number().int().min(1).default(10_000_000),
    /**
     * Pixels per image (width × height, read from its header before decoding). 8192×4096: a 12 MP
     * phone photo and a 24 MP camera's pass, while no projector looks at more than a few megapixels
     * (each resizes first). Decoding peaks at 6-16 bytes a pixel: at this cap, measured with
     * stb_image, 194 MiB for an 8-bit RGB PNG and 514 MiB for a 16-bit RGBA one of 1.2 MB.
     */
    maxImagePixels: z.number().int().min(1).default(8192 * 4096),
    /** Image parts per request, over all its messages. */
    maxImagesPerRequest: z.number().int().min(0).default(16),
    /**
     * Let chatserve.json's `chat_template` and `mmproj` name files outside the models folder
     * (through `..`, an absolute path or a symlink); off, they are refused (models/settingsPaths.ts).
     */
    allowPathsOutsideModels: z.boolean().default(false),
    /** How often the models folder is rescanned for new files, in ms. */
    rescanIntervalMs: z.number().int().min(100).default(2000)
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

export type ModelAliasSetting = Config["modelAliases"][number];

export function resolveConfig(input: ConfigInput = {}): Config {
    const config = configSchema.parse(input);
    // llama.cpp would refuse every model's context: said once, at start.
    if (isQuantized(config.cacheTypeV) && config.flashAttention === "off")
        throw new Error(`--cache-type-v ${config.cacheTypeV} needs flash attention (llama.cpp reads a quantized V cache only with it); drop --flash-attention off, or use --cache-type-v f16`);
    // An admin key is a key: every check that asks whether keys are set, or which, counts it.
    return {...config, apiKeys: [...new Set([...config.apiKeys, ...config.adminApiKeys])]};
}

/** Admin keys from the environment: CHATSERVE_ADMIN_API_KEY, or several comma-separated in CHATSERVE_ADMIN_API_KEYS. */
export function adminApiKeysFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
    return apiKeysFromEnv({CHATSERVE_API_KEY: env.CHATSERVE_ADMIN_API_KEY, CHATSERVE_API_KEYS: env.CHATSERVE_ADMIN_API_KEYS});
}

/** Keys from the environment: CHATSERVE_API_KEY, or several comma-separated in CHATSERVE_API_KEYS. */
export function apiKeysFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
    return [env.CHATSERVE_API_KEY, ...(env.CHATSERVE_API_KEYS ?? "").split(",")]
        .map((key) => key?.trim() ?? "")
        .filter((key) => key !== "");
}

/** `NAME=ID` (as --model-alias and CHATSERVE_MODEL_ALIASES write an alias) → the setting; throws with the reason. */
export function parseModelAlias(text: string): ModelAliasSetting {
    const separator = text.indexOf("=");
    const name = text.slice(0, separator).trim();
    const model = text.slice(separator + 1).trim();
    if (separator < 0 || name === "" || model === "")
        throw new Error(`'${text}' is not NAME=ID (e.g. gpt-4o=qwen2.5-7b-instruct-q4_k_m, or claude-*=qwen2.5-7b-instruct-q4_k_m).`);
    if (model.includes("*"))
        throw new Error(`'${text}': only NAME may hold '*'; ID must be a model id.`);
    return {name, model};
}

/** Aliases from the environment: CHATSERVE_MODEL_ALIASES, comma-separated NAME=ID pairs. */
export function modelAliasesFromEnv(env: NodeJS.ProcessEnv = process.env): ModelAliasSetting[] {
    return (env.CHATSERVE_MODEL_ALIASES ?? "").split(",")
        .filter((pair) => pair.trim() !== "")
        .map((pair) => {
            try {
                return parseModelAlias(pair);
            } catch (error) {
                throw new Error(`CHATSERVE_MODEL_ALIASES: ${(error as Error).message}`);
            }
        });
}
