import path from "node:path";
import {Command, Option} from "commander";
import {apiKeysFromEnv} from "../config.js";
import {formatBytes} from "../models/byteSize.js";
import {CommandFailure} from "./commandFailure.js";
import {textTable} from "./textTable.js";

/**
 * A `/v1/models` entry as `ps` reads it: every field may be missing (an older server), and then the
 * column says what can be said without it.
 */
export type ServedModel = {
    id: string,
    alias_for?: string,
    status?: string,
    loaded?: boolean,
    loading?: boolean,
    /** Loading, but first waiting for other models to go idle so that it fits the memory budget. */
    waiting_for_memory?: boolean,
    unloading?: boolean,
    context_length?: number | null,
    size_bytes?: number,
    kv_cache_bytes?: number | null,
    context_memory_bytes?: number,
    memory_bytes?: number,
    memory_gpu_bytes?: number,
    active_requests?: number,
    keep_alive?: number | null,
    expires_at?: number | null,
    /** What the prompt cache holds of the model's prompts (absent from an older server, and until the model has loaded). */
    prompt_cache?: {ram_bytes?: number, disk_bytes?: number},
    /** Its draft model, and why it is not used if it is not (absent from an older server, and for a model without one). */
    draft?: {path?: string, error?: string}
};

/** `chatserve ps`: what a running server has in memory now, as `ollama ps` shows it. */
export function psCommand(program: Command): void {
    program.command("ps")
        .description("show the models a running chatserve has loaded: memory, processor, context, until when")
        .addOption(new Option("--url <url>", "the server (default: http://CHATSERVE_HOST:CHATSERVE_PORT, else http://127.0.0.1:8080)"))
        .addOption(new Option("--api-key <key>", "the server's API key (default: CHATSERVE_API_KEY)"))
        .showHelpAfterError("(run chatserve ps --help for its options)")
        .action(async (options: {url?: string, apiKey?: string}) => {
            const base = serverUrl(options.url);
            const [models, backend] = await Promise.all([fetchModels(base, options.apiKey ?? apiKeysFromEnv()[0]), fetchBackend(base)]);
            process.stdout.write(psTable(models, backend, Date.now() / 1000));
        });
}

/** `--url`, else the address `chatserve` itself would listen on (a wildcard host is reached on loopback). */
export function serverUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
    let text = flag?.trim();
    if (text == null || text === "") {
        const host = env.CHATSERVE_HOST?.trim() || "127.0.0.1";
        const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
        text = `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${env.CHATSERVE_PORT?.trim() || "8080"}`;
    }
    if (!/^https?:\/\//i.test(text))
        text = `http://${text}`;
    try {
        const url = new URL(text);
        // The API's base (…/v1), as clients are configured with, names the same server.
        return `${url.origin}${url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "")}`;
    } catch {
        throw new CommandFailure(`--url '${flag}' is not a URL (e.g. http://127.0.0.1:8080)`);
    }
}

async function fetchModels(base: string, apiKey: string | undefined): Promise<ServedModel[]> {
    let response: Response;
    try {
        response = await fetch(`${base}/v1/models`, {
            headers: apiKey != null ? {authorization: `Bearer ${apiKey}`} : {},
            signal: AbortSignal.timeout(10_000)
        });
    } catch (error) {
        const cause = (error as {cause?: {code?: string}}).cause;
        const why = (error as Error).name === "TimeoutError" ? "no answer within 10 s" : cause?.code ?? (error as Error).message;
        throw new CommandFailure(`no chatserve answers at ${base} (${why}): start one with \`chatserve --models DIR\`, ` +
            `or point --url (or CHATSERVE_HOST and CHATSERVE_PORT) at it`);
    }
    if (response.status === 401)
        throw new CommandFailure(apiKey == null
            ? `the server at ${base} requires an API key: pass --api-key KEY or set CHATSERVE_API_KEY`
            : `the server at ${base} refused that API key`);
    const body = await response.json().catch(() => null) as {data?: unknown} | null;
    if (!response.ok || body == null || !Array.isArray(body.data))
        throw new CommandFailure(`the server at ${base} did not answer GET /v1/models as chatserve does (status ${response.status})`);
    return body.data as ServedModel[];
}

/** What runs the models, from `/health`; null from a server that does not say. */
async function fetchBackend(base: string): Promise<string | null> {
    try {
        const body = await (await fetch(`${base}/health`, {signal: AbortSignal.timeout(10_000)})).json() as {backend?: unknown};
        return typeof body.backend === "string" ? body.backend : null;
    } catch {
        return null;
    }
}

/** The models in memory or on their way there; aliases are the same model under another name, so they get no row. */
export function psTable(models: readonly ServedModel[], backend: string | null, nowSeconds: number): string {
    const resident = models.filter((model) => model.alias_for == null &&
        (model.loaded === true || model.loading === true || model.status === "loaded" || model.status === "loading"));
    const rows = resident.map((model) => [
        // A draft model is part of its model: loaded and unloaded with it, in its MEMORY.
        model.draft?.path != null && model.draft.error == null ? `${model.id} (+ draft ${path.basename(model.draft.path)})` : model.id,
        memory(model),
        processor(model, backend),
        model.context_length != null ? String(model.context_length) : "-",
        cached(model),
        until(model, nowSeconds)
    ]);
    const table = textTable(["NAME", "MEMORY", "PROCESSOR", "CONTEXT", "CACHED", "UNTIL"], rows);
    return rows.length > 0 ? table : `${table}(no model is loaded: a model loads on its first request)\n`;
}

function memory(model: ServedModel): string {
    if (typeof model.memory_bytes === "number")
        return formatBytes(model.memory_bytes);
    // An older server: the weights and what its context allocated (or was estimated to).
    if (typeof model.size_bytes === "number")
        return formatBytes(model.size_bytes + (model.context_memory_bytes ?? model.kv_cache_bytes ?? 0));
    return "-";
}

/** The prompt cache's share of the model: "40 MiB RAM + 1.2 GiB disk", the tiers holding nothing left out; "-" when the server does not say. */
function cached(model: ServedModel): string {
    const cache = model.prompt_cache;
    if (cache == null || typeof cache.ram_bytes !== "number")
        return "-";
    const parts = [[cache.ram_bytes, "RAM"], [cache.disk_bytes ?? 0, "disk"]] as const;
    const held = parts.filter(([bytes]) => bytes > 0).map(([bytes, tier]) => `${formatBytes(bytes)} ${tier}`);
    return held.length > 0 ? held.join(" + ") : "none";
}

/** As `ollama ps` writes it: "100% CPU", "100% GPU", "25%/75% CPU/GPU". */
function processor(model: ServedModel, backend: string | null): string {
    if (typeof model.memory_gpu_bytes === "number" && typeof model.memory_bytes === "number" && model.memory_bytes > 0) {
        const gpu = Math.round(model.memory_gpu_bytes / model.memory_bytes * 100);
        return gpu <= 0 ? "100% CPU" : gpu >= 100 ? "100% GPU" : `${100 - gpu}%/${gpu}% CPU/GPU`;
    }
    if (backend == null)
        return "-";
    return backend === "CPU" ? "100% CPU" : `GPU (${backend})`;
}

/** When the model leaves memory, as far as the server has decided it. */
function until(model: ServedModel, nowSeconds: number): string {
    if (model.unloading === true)
        return "unloading";
    if (model.loading === true || (model.loaded !== true && model.status === "loading"))
        return model.waiting_for_memory === true ? "waiting for memory" : "loading";
    if (model.keep_alive === -1)
        return "forever";
    if (typeof model.expires_at === "number")
        return model.expires_at <= nowSeconds ? "now" : `${humanDuration(model.expires_at - nowSeconds)} from now`;
    if ((model.active_requests ?? 0) > 0 && typeof model.keep_alive === "number")
        return model.keep_alive === 0 ? "its requests end" : `${humanDuration(model.keep_alive)} after its requests end`;
    return "until memory is needed";
}

/** "45 seconds", "4 minutes", "2 hours", "3 days": a person's reading of a span, as Ollama writes it. */
export function humanDuration(seconds: number): string {
    const units: Array<[string, number]> = [["day", 86_400], ["hour", 3600], ["minute", 60], ["second", 1]];
    for (const [unit, size] of units) {
        const count = Math.floor(seconds / size);
        if (count >= 1 || unit === "second") {
            const whole = Math.max(1, count);
            return `${whole} ${unit}${whole === 1 ? "" : "s"}`;
        }
    }
    return "1 second";
}
