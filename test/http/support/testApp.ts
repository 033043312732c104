// Builds the real Express app over the engine double.
import type express from "express";
import {createApp} from "../../../src/app.js";
import {readinessOf} from "../../../src/api/health/readiness.js";
import type {Drain} from "../../../src/http/drain.js";
import {CompletionService} from "../../../src/api/openai-completions/completionService.js";
import {EmbeddingService} from "../../../src/api/openai-embeddings/embeddingService.js";
import {ConversationService} from "../../../src/conversation/conversationService.js";
import {ResponseStore} from "../../../src/api/openai-responses/responseStore.js";
import {ResponsesService} from "../../../src/api/openai-responses/responsesService.js";
import {MessagesService} from "../../../src/api/anthropic-messages/messagesService.js";
import {resolveConfig, type ConfigInput} from "../../../src/config.js";
import {createLogger} from "../../../src/logger.js";
import {ServerMetrics} from "../../../src/metrics/serverMetrics.js";
import {ModelAliases} from "../../../src/models/modelAliases.js";
import type {ModelDescriptor} from "../../../src/models/modelDescriptor.js";
import {ModelRegistry, type MemorySettings} from "../../../src/models/modelRegistry.js";
import {CONTEXT_LENGTH, FakeLoader, FakeModel, StaticCatalogue, testDescriptors} from "./fakeEngine.js";

export type TestApp = {
    app: express.Express,
    model: FakeModel,
    catalogue: StaticCatalogue,
    registry: ModelRegistry,
    /** The app's metrics (absent with `metrics: false`). */
    metrics?: ServerMetrics,
    /** How many times the loader ran. */
    loads(): number
};

export function createTestApp(
    options: {
        apiKeys?: string[], adminApiKeys?: string[], sharePrefixCache?: boolean, corsOrigins?: string[], bodyLimit?: string, logPrompts?: boolean, logLines?: string[], stopping?: AbortSignal,
        modelAliases?: ConfigInput["modelAliases"],
        /** The interface it would listen on (default 127.0.0.1) and --allowed-host: which Host headers are served. */
        host?: string, allowedHosts?: string[],
        /** The catalogue's models (default: testDescriptors()). */
        descriptors?: ModelDescriptor[],
        /** A loader that makes a model per load and records loads and unloads (default: every load hands out `model`). */
        loader?: FakeLoader,
        /** The memory budget, count limit and keep-alive. */
        memory?: MemorySettings,
        /** False: as --no-metrics (no GET /metrics). */
        metrics?: boolean,
        /** As --metrics-without-key. */
        metricsWithoutKey?: boolean,
        /** How long a stream waits for a client that reads nothing. */
        streamStallMs?: number,
        /** The models folder the app is told of (Ollama's /api/delete removes files there); the catalogue stays `descriptors`. */
        modelsDir?: string,
        /** Shutdown's drain, as server.ts hands it to the app. */
        drain?: Drain
    } = {}
): TestApp {
    const {logLines, stopping, descriptors, loader, memory, metrics: withMetrics = true, streamStallMs, drain, ...settings} = options;
    const config = resolveConfig(settings);
    // With `logLines`, the log's JSON lines are kept there; otherwise nothing is logged.
    const logger = logLines == null ? createLogger("silent") : createLogger("info", {write: (line: string) => logLines.push(line)});
    const catalogue = new StaticCatalogue(descriptors ?? testDescriptors());
    const model = new FakeModel();
    let loads = 0;
    const metrics = withMetrics ? new ServerMetrics(() => registry.occupancy()) : undefined;
    const registry: ModelRegistry = new ModelRegistry(catalogue, async (descriptor, plan) => {
        loads++;
        return loader == null ? model : await loader.load(descriptor, plan);
    }, {context: {ctxSize: CONTEXT_LENGTH, parallel: 1}, aliases: new ModelAliases(config.modelAliases), memory, lifecycle: metrics?.lifecycle}, logger);
    const conversations = new ConversationService(registry);
    const app = createApp({
        config, logger, registry, streamStallMs,
        conversations,
        responses: new ResponsesService(conversations, new ResponseStore(), logger),
        messages: new MessagesService(conversations, logger),
        completions: new CompletionService(registry),
        embeddings: new EmbeddingService(registry),
        stopping,
        metrics,
        drain,
        // As server.ts builds it.
        readiness: () => readinessOf({draining: drain?.draining ?? false, models: registry.list(), occupancy: registry.occupancy(), maxQueue: config.maxQueue})
    });
    return {app, model, catalogue, registry, metrics, loads: () => loads};
}

export const MODEL = "tiny-chat";

/** A minimal valid chat request, with overrides. */
export function chatRequest(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {model: MODEL, messages: [{role: "user", content: "Say hello"}], ...extra};
}

/** Checks OpenAI's error envelope and returns its `error` object. */
export function errorOf(body: unknown): {message: string, type: string, param: string | null, code: string | null} {
    const envelope = body as {error?: Record<string, unknown>};
    if (envelope.error == null || Object.keys(envelope).join() !== "error"
        || Object.keys(envelope.error).sort().join() !== "code,message,param,type")
        throw new Error(`not an error envelope: ${JSON.stringify(body)}`);
    const {message, type, param, code} = envelope.error;
    if (typeof message !== "string" || typeof type !== "string" || (param !== null && typeof param !== "string") || (code !== null && typeof code !== "string"))
        throw new Error(`malformed error envelope: ${JSON.stringify(body)}`);
    return {message, type, param, code};
}
