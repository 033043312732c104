import fs from "node:fs";
import path from "node:path";
import type {Config} from "../config.js";
import {describeKvCacheTypes, isDefaultKvCache} from "../engine/kvCacheTypes.js";
import type {RunningServer} from "../server.js";
import {formatBytes} from "../models/byteSize.js";
import type {ListedModel} from "../models/listedModel.js";
import {totalBytes} from "../models/memoryEstimate.js";
import {isLoopbackHost} from "../http/hostCheck.js";

/**
 * The start-up summary a person reads: where to point clients, what runs the models, which models
 * there are, what each request gets of them and what their KV cache costs in memory.
 */
export function printBanner(config: Config, server: RunningServer): void {
    const entries = server.registry.list();
    const models = entries.filter((entry) => entry.aliasFor == null);
    const lines = [
        `chatserve is listening on ${server.url}`,
        `backend: ${server.backend} (${server.openmp ? "OpenMP build, " : ""}${server.threads} inference thread${server.threads === 1 ? "" : "s"}, ${server.decodeThreads} for decoding)` +
        (config.apiKeys.length > 0 ? `, API key required` : "")
    ];
    const exposed = exposureWarning(config);
    if (exposed != null)
        lines.push(exposed);
    const sizedToMemory = [config.ctxSize == null ? "context" : null, config.parallel == null ? "parallel sequences" : null].filter((part) => part != null);
    if (sizedToMemory.length > 0)
        lines.push(`memory: ${formatBytes(server.freeMemoryBytes)} free at start; a model's KV cache takes at most half of what its weights leave ` +
            `(by its default ${sizedToMemory.join(" and ")})`);
    if (server.memoryBudget != null)
        lines.push(residencyLine(config, server.memoryBudget));
    lines.push(`models in ${path.resolve(config.modelsDir)}:`);
    if (models.length === 0)
        lines.push(
            // A mistyped --models path would otherwise look like an empty folder.
            fs.existsSync(config.modelsDir)
                ? "  (none yet) Copy a .gguf file into that folder, or download one: chatserve pull hf:user/repo:Q4_K_M;"
                : "  (none yet: that folder does not exist) Create it and copy a .gguf file into it, or check --models;",
            "  chatserve picks it up without a restart."
        );
    for (const model of models)
        lines.push(model.status === "unavailable"
            ? `  - ${model.id}: unavailable (${model.error})`
            : `  - ${model.id} (${model.architecture}, ${model.capabilities.join(", ")}): ${servedAs(model)}` +
                (model.visionError == null ? "" : `; text only: ${model.visionError}`) +
                (model.draft == null ? "" : `; draft model ${path.basename(model.draft.path)}${model.draft.error == null ? "" : ` (${model.draft.error})`}`));
    const visionLine = imageInputLine(server, models);
    if (visionLine != null)
        lines.push(visionLine);
    const settings = server.settingsFile;
    if (settings?.error != null)
        lines.push(`settings: ${settings.error}`);
    else if (settings != null && Object.keys(settings.current.table.models).length > 0)
        lines.push(`settings: ${settings.path} (${Object.keys(settings.current.table.models).join(", ")})`);
    const aliases = config.modelAliases;
    if (aliases.length > 0)
        lines.push(`aliases: ${aliases.map(({name, model}) =>
            `${name} → ${model}${models.some((entry) => entry.id === model) ? "" : " (not in the folder)"}`).join(", ")}`);

    process.stdout.write(lines.join("\n") + "\n");
}

/** What a request gets of a model, and what that costs: "32768 tokens per request, 4 at once, KV cache 3 GiB". */
function servedAs(model: ListedModel): string {
    const parts = [`${model.contextLength} tokens per request`];
    if (model.capabilities.includes("chat"))
        parts.push(`${model.parallel} at once`);
    if (model.kvCacheBytes != null)
        parts.push(`KV cache ${formatBytes(model.kvCacheBytes)}${model.kvCacheTypes == null || isDefaultKvCache(model.kvCacheTypes) ? "" : ` (${describeKvCacheTypes(model.kvCacheTypes)})`}`);
    if (model.memory != null)
        parts.push(`${formatBytes(totalBytes(model.memory))} in all`);
    return parts.join(", ");
}

/** How much the models may take together, and how long an idle one stays: "loaded models: up to 18 GiB together (…); an idle one stays until its memory is needed". */
function residencyLine(config: Config, budget: RunningServer["memoryBudget"]): string {
    const count = Number.isFinite(budget.models) ? `, ${budget.models} at once` : "";
    const keepAlive = config.keepAlive;
    const stays = keepAlive == null ? "until its memory is needed for another"
        : keepAlive === "forever" ? "for ever (--keep-alive -1: never unloaded to make room)"
            : keepAlive.ms === 0 ? "not at all (--keep-alive 0: unloaded after each request)"
                : `${keepAlive.ms / 1000} s (--keep-alive), or until its memory is needed`;
    return `loaded models: up to ${formatBytes(budget.bytes)} together (${budget.source})${count}; an idle one stays ${stays}`;
}

/** Listening beyond this machine with no key: said in plain words, for it is rarely meant. */
function exposureWarning(config: Config): string | null {
    if (isLoopbackHost(config.host) || config.apiKeys.length > 0)
        return null;
    const names = config.allowedHosts.includes("*")
        ? "and --allowed-host '*' lets any web page a browser here opens reach it under a name of its own (DNS rebinding). "
        : "Requests must name it by address, a loopback name or an --allowed-host name (a web page could otherwise rebind a name of its own to it). ";
    return `warning: listening on ${config.host} with no API key: anyone who can reach this port can run the models and read their replies; ` +
        names + "Give keys with --api-key-file (or --api-key), or listen on 127.0.0.1 only (the default).";
}

/** Whether images work, and where not why: a build without vision, or models with it. */
function imageInputLine(server: RunningServer, models: readonly ListedModel[]): string | null {
    if (!server.vision.available)
        return `image input: not available (${server.vision.reason})`;
    const withVision = models.filter((model) => model.capabilities.includes("vision")).map((model) => model.id);
    return withVision.length === 0 ? null : `image input: ${withVision.join(", ")} (each with its projector, mmproj)`;
}
