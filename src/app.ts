import express from "express";
import type {Logger} from "pino";
import type {ConversationService} from "./conversation/conversationService.js";
import type {CompletionService} from "./api/openai-completions/completionService.js";
import type {Config} from "./config.js";
import type {EmbeddingService} from "./api/openai-embeddings/embeddingService.js";
import {requireApiKey} from "./http/auth.js";
import {cors} from "./http/cors.js";
import {errorHandler, notFound} from "./http/errorHandler.js";
import {allowedHostsOnly} from "./http/hostCheck.js";
import {jsonBody} from "./http/jsonBody.js";
import {requestLog} from "./http/requestLog.js";
import {requestMetrics} from "./http/requestMetrics.js";
import {chatCompletionsRoute} from "./api/openai-chat/chatCompletionsRoute.js";
import {completionsRoute} from "./api/openai-completions/completionsRoute.js";
import {embeddingsRoute} from "./api/openai-embeddings/embeddingsRoute.js";
import {healthRoute} from "./api/health/healthRoute.js";
import {useAnthropicErrors} from "./http/errorDialect.js";
import {messagesRoute} from "./api/anthropic-messages/messagesRoute.js";
import {metricsRoute} from "./api/metrics/metricsRoute.js";
import {modelsRoute} from "./api/models/modelsRoute.js";
import {responsesRoute} from "./api/openai-responses/responsesRoute.js";
import type {MessagesService} from "./api/anthropic-messages/messagesService.js";
import type {ServerMetrics} from "./metrics/serverMetrics.js";
import type {ModelRegistry} from "./models/modelRegistry.js";
import type {ResponsesService} from "./api/openai-responses/responsesService.js";

export type AppDependencies = {
    config: Pick<Config, "apiKeys" | "corsOrigins" | "bodyLimit" | "logPrompts" | "host" | "allowedHosts">,
    logger: Logger,
    registry: ModelRegistry,
    chat: ConversationService,
    /** OpenAI's Responses API, over the chat service. */
    responses: ResponsesService,
    /** Anthropic's Messages API, over the chat service. */
    messages: MessagesService,
    completions: CompletionService,
    embeddings: EmbeddingService,
    /** Aborted with an ApiError when the server stops serving: running replies end with that error. */
    stopping?: AbortSignal,
    /** What runs the models ("CPU", "CUDA" …), as `GET /health` names it. */
    backend?: string,
    /** Counts every request and serves `GET /metrics`; absent (--no-metrics): neither, and /metrics is a 404. */
    metrics?: ServerMetrics
};

/**
 * The HTTP application, in the order a request meets it: request id and access log → metrics →
 * Host check (DNS rebinding) → CORS (preflights end here) → health (no key) → /metrics (/v1's
 * key) → API key → JSON body → routes → 405 or 404 → errors.
 * It never listens; src/server.ts does, and supertest drives it directly in tests.
 */
export function createApp({config, logger, registry, chat, responses, messages, completions, embeddings, stopping, backend, metrics}: AppDependencies): express.Express {
    const app = express();
    app.disable("x-powered-by");
    app.set("etag", false);

    app.use(requestLog(logger));
    if (metrics != null)
        app.use(requestMetrics(metrics, registry));
    // Anthropic's clients parse its error envelope: set before every refusal below (a Host, a key, a body), which it shapes too.
    app.use("/v1/messages", useAnthropicErrors);
    // Before anything answers, /health and CORS preflights included: a DNS-rebinding page gets nothing (hostCheck.ts).
    app.use(allowedHostsOnly(config.host, config.allowedHosts));
    app.use(cors(config.corsOrigins));
    app.use(healthRoute(backend));
    if (metrics != null)
        app.use(metricsRoute(metrics, config.apiKeys));
    app.use("/v1", requireApiKey(config.apiKeys));
    app.use(jsonBody(config.bodyLimit));
    app.use(modelsRoute(registry));
    app.use(chatCompletionsRoute(chat, logger, {logPrompts: config.logPrompts, stopping}));
    app.use(responsesRoute(responses, logger, {logPrompts: config.logPrompts, stopping}));
    app.use(messagesRoute(messages, logger, {logPrompts: config.logPrompts, stopping}));
    app.use(completionsRoute(completions, logger, {logPrompts: config.logPrompts, stopping}));
    app.use(embeddingsRoute(embeddings, stopping));
    app.use(notFound);
    app.use(errorHandler(logger));
    return app;
}
