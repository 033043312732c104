import {setMaxListeners} from "node:events";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type {AddressInfo} from "node:net";
import type {Logger} from "pino";
import {createApp} from "./app.js";
import {ConversationService} from "./conversation/conversationService.js";
import {ResponseStore} from "./api/openai-responses/responseStore.js";
import {ResponsesService} from "./api/openai-responses/responsesService.js";
import {MessagesService} from "./api/anthropic-messages/messagesService.js";
import {CompletionService} from "./api/openai-completions/completionService.js";
import type {Config} from "./config.js";
import {EmbeddingService} from "./api/openai-embeddings/embeddingService.js";
import {imageLimits} from "./images/imageLimits.js";
import {ServerMetrics} from "./metrics/serverMetrics.js";
import {ServiceShuttingDownError} from "./errors.js";
import {readinessOf} from "./api/health/readiness.js";
import {Drain} from "./http/drain.js";
import {answerMalformedRequests} from "./http/malformedRequest.js";
import {openAiErrors} from "./api/openai-shared/openAiErrors.js";
import {LlamaLoadedModel} from "./engine/llamaLoadedModel.js";
import {PromptCache} from "./engine/promptCache/promptCache.js";
import {promptCacheSettings} from "./engine/promptCache/promptCacheSettings.js";
import {registerPromptCacheMetrics} from "./metrics/promptCacheMetrics.js";
import {startLlamaRuntime, type Backend, type LlamaRuntime} from "./engine/llamaRuntime.js";
import {imageDecodeBytes} from "./engine/vision/imageMemory.js";
import {inspectGguf} from "./models/ggufInspection.js";
import {ModelAliases} from "./models/modelAliases.js";
import {ModelCatalogue} from "./models/modelCatalogue.js";
import {ModelRegistry} from "./models/modelRegistry.js";
import {SettingsFile} from "./models/settingsFile.js";

export type RunningServer = {
    /** Base URL of the API, e.g. http://127.0.0.1:8080/v1 */
    url: string,
    port: number,
    backend: Backend,
    /** llama.cpp runs an OpenMP build (see scripts/buildCpuBackend.mjs). */
    openmp: boolean,
    threads: number,
    decodeThreads: number,
    /** Whether this build takes images (a model also needs a projector), and if not, why. */
    vision: LlamaRuntime["vision"],
    /** The image decodes every projector shares (engine/vision/imageDecodePool.ts): how many run and wait. */
    imageDecodes: LlamaRuntime["imageDecodes"],
    /** Memory free at start (VRAM on a GPU backend). */
    freeMemoryBytes: number,
    /** What the loaded models may take together (--memory-limit, or the memory free at start less a margin), and how many there may be. */
    memoryBudget: MemoryBudgetSetting,
    registry: ModelRegistry,
    /** chatserve.json: its path, and why it was refused when it was (the banner says so). */
    settingsFile: Pick<SettingsFile, "path" | "error" | "current">,
    /**
     * Graceful shutdown: stop accepting, let in-flight requests end (cut after `graceMs`), release the
     * models. A load still running after a while is left behind (`loadsLeftRunning`), and llama.cpp is
     * then not disposed under it: the caller exits without waiting for it (cli/serveCommand.ts).
     */
    close(graceMs?: number): Promise<{loadsLeftRunning: number}>
};

/** Builds every dependency, listens, and owns shutdown. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
    // Before llama.cpp starts: a mistake in the aliases is a one-line refusal.
    const aliases = new ModelAliases(config.modelAliases);
    const draftModel = config.draftModel == null ? undefined : draftModelFile(config.modelsDir, config.draftModel);
    const runtime = await startLlamaRuntime(config, logger);
    const catalogue = new ModelCatalogue(config.modelsDir, logger, (file) => inspectGguf(file, runtime.llama));
    await catalogue.refresh();

    const memoryBudget = budgetFor(config, runtime.freeMemoryBytes);
    // The prompt cache's RAM tier comes out of the models' budget: together they keep to it.
    const promptCache = new PromptCache(promptCacheSettings(config, memoryBudget.bytes), logger);
    memoryBudget.bytes -= promptCache.ram.budgetBytes;
    // Made before the registry, which tells it of loads; it reads the registry only when scraped.
    const metrics = config.metrics ? new ServerMetrics(() => registry.occupancy(), {processMetrics: true}) : undefined;
    if (metrics != null)
        registerPromptCacheMetrics(metrics.registry, () => promptCache.snapshot());
    const registry: ModelRegistry = new ModelRegistry(catalogue, (descriptor, plan) => LlamaLoadedModel.load(runtime, {
        path: descriptor.path,
        contextSize: plan.contextLength,
        parallel: plan.parallel,
        maxQueue: config.maxQueue,
        generates: descriptor.capabilities.includes("chat"),
        tools: descriptor.capabilities.includes("tools"),
        embeds: descriptor.capabilities.includes("embeddings"),
        ranks: descriptor.capabilities.includes("rerank"),
        chatTemplate: plan.chatTemplate,
        ...(plan.kvCacheTypes == null ? {} : {kvCacheTypes: plan.kvCacheTypes}),
        ...(plan.loraAdapters == null ? {} : {loraAdapters: plan.loraAdapters}),
        ...(plan.projector == null ? {} : {projector: {path: plan.projector, threads: runtime.threads}}),
        ...(plan.projectorRefusal == null ? {} : {projectorRefusal: plan.projectorRefusal}),
        ...(plan.draft == null ? {} : {draft: plan.draft}),
        ...(plan.lookupDecoding == null ? {} : {lookupDecoding: plan.lookupDecoding})
    }, promptCache), {
        // Each model's default context is sized to the budget, not only to what is free: one model alone always fits it.
        context: {
            ctxSize: config.ctxSize, parallel: config.parallel, freeMemoryBytes: Math.min(runtime.freeMemoryBytes, memoryBudget.bytes),
            kvCacheTypes: {k: config.cacheTypeK, v: config.cacheTypeV},
            vision: runtime.vision.available, imageDecodeBytes: imageDecodeBytes(config.maxImagePixels, runtime.imageDecodes.concurrency),
            ...(draftModel == null ? {} : {draftModel})
        },
        aliases,
        memory: {
            ...memoryBudget, keepAlive: config.keepAlive, waitMs: config.memoryWaitMs, maxWaiting: config.maxQueue
        },
        lifecycle: metrics?.lifecycle,
        promptCacheUsage: (path) => promptCache.usageFor(path)
    }, logger);
    // chatserve.json is read before the first listing (the banner's), then again at every rescan.
    const settingsFile = new SettingsFile(config.modelsDir, logger, config.allowPathsOutsideModels);
    const reloadSettings = () => settingsFile.reload((settings) => registry.applySettings(settings))
        .catch((error: unknown) => logger.error({event: "settings_read_failed", err: error}, `cannot read ${settingsFile.path}`));
    await reloadSettings();
    catalogue.watch(config.rescanIntervalMs, () => {
        registry.releaseStale();
        void reloadSettings();
    });
    const stopping = new AbortController();
    // Every running request listens for the end of the grace period.
    setMaxListeners(0, stopping.signal);
    const conversations = new ConversationService(registry, logger, imageLimits(config));
    // Begun when shutdown begins: GET /health/ready answers 503 from then on, and new requests get a 503.
    const drain = new Drain();
    const app = createApp({
        config, logger, registry, stopping: stopping.signal, backend: runtime.backend, metrics, drain,
        readiness: () => readinessOf({draining: drain.draining, models: registry.list(), occupancy: registry.occupancy(), maxQueue: config.maxQueue}),
        conversations,
        responses: new ResponsesService(conversations, new ResponseStore(), logger),
        messages: new MessagesService(conversations, logger),
        completions: new CompletionService(registry),
        embeddings: new EmbeddingService(registry)
    });

    const server = http.createServer(app);
    drain.track(server);
    // The time a client has to send its whole request: a stalled upload must not hold a socket for
    // ever. It does not bound the response, so long generations are not cut (Node's default, explicit).
    server.requestTimeout = 300_000;
    answerMalformedRequests(server, logger, openAiErrors);
    await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(config.port, config.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const host = config.host.includes(":") ? `[${config.host}]` : config.host;

    let closing: Promise<{loadsLeftRunning: number}> | null = null;
    const close = (graceMs = config.shutdownGraceMs) => closing ??= (async () => {
        // First the drain (http/drain.ts): readiness answers 503, and so does every new request, with
        // Retry-After (a balancer resends it elsewhere), while the listener stays open.
        const drained = drain.begin();
        catalogue.close();
        registry.stopQueueing();
        // At the end of the grace period, replies still running end with a 503 or an SSE error event
        // (shutting_down) rather than a cut connection; a moment later every connection is closed.
        const timer = setTimeout(() => {
            stopping.abort(new ServiceShuttingDownError("The server is shutting down: this reply was cut short."));
            setTimeout(() => server.closeAllConnections(), 1000).unref();
        }, graceMs);
        // The replies under way have ended: now the listener closes.
        await drained;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // A reply that ends during the grace period leaves its keep-alive connection idle, and
        // server.close() closes idle connections only once: sweep them until the last one is gone.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        await closed;
        clearInterval(sweep);
        clearTimeout(timer);
        const {loadsLeftRunning} = await registry.dispose();
        // The states the models saved as they unloaded reach the disk before the process ends.
        await promptCache.flush();
        if (loadsLeftRunning === 0)
            await runtime.llama.dispose();
        return {loadsLeftRunning};
    })();

    return {url: `http://${host}:${port}/v1`, port, backend: runtime.backend, openmp: runtime.openmp, threads: runtime.threads, decodeThreads: runtime.decodeThreads, vision: runtime.vision, imageDecodes: runtime.imageDecodes, freeMemoryBytes: runtime.freeMemoryBytes, memoryBudget, registry, settingsFile, close};
}

export type MemoryBudgetSetting = {bytes: number, models: number, source: string};

/** --draft-model's file: relative to the models folder (or absolute); one that is not there is refused at start, not at each load. */
function draftModelFile(modelsDir: string, file: string): string {
    const resolved = path.resolve(modelsDir, file);
    if (!fs.existsSync(resolved) || !fs.statSync(resolved).isFile())
        throw new Error(`--draft-model: ${resolved} is not a file (it names a .gguf, relative to the models folder or absolute)`);
    return resolved;
}

/** The share of the memory free at start that the default budget leaves to the OS, the clients and llama.cpp's own overhead. */
const defaultBudgetMargin = 0.1;

/** --memory-limit and --max-loaded-models, or their defaults: what was free at start less a margin, and no count limit. */
function budgetFor(config: Pick<Config, "memoryLimit" | "maxLoadedModels">, freeMemoryBytes: number): MemoryBudgetSetting {
    return {
        bytes: config.memoryLimit ?? Math.floor(freeMemoryBytes * (1 - defaultBudgetMargin)),
        models: config.maxLoadedModels ?? Number.POSITIVE_INFINITY,
        source: config.memoryLimit != null ? "--memory-limit" : "the memory free at start, less a tenth"
    };
}
