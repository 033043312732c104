import express, {type RequestHandler} from "express";
import type {Logger} from "pino";
import type {Config} from "./config.js";
import type {ConversationService} from "./conversation/conversationService.js";
import type {ServerMetrics} from "./metrics/serverMetrics.js";
import type {ModelRegistry} from "./models/modelRegistry.js";
import {requireApiKey} from "./http/auth.js";
import {cachePartitions} from "./http/cachePartition.js";
import {cors} from "./http/cors.js";
import {useErrorEnvelope} from "./http/errorEnvelope.js";
import {errorHandler, notFound} from "./http/errorHandler.js";
import {adminOnly} from "./http/adminOnly.js";
import {allowedHostsOnly} from "./http/hostCheck.js";
import {jsonBody} from "./http/jsonBody.js";
import {ReplyWriter} from "./http/replyWriter.js";
import {requestLog} from "./http/requestLog.js";
import {requestMetrics} from "./http/requestMetrics.js";
import {healthRoute} from "./api/health/healthRoute.js";
import type {Readiness} from "./api/health/readiness.js";
import {sessionAffinity} from "./http/sessionAffinity.js";
import type {Drain} from "./http/drain.js";
import {webPageRoute} from "./api/web-page/webPageRoute.js";
import {metricsRoute} from "./api/metrics/metricsRoute.js";
import {modelsRoute} from "./api/models/modelsRoute.js";
import {loraAdaptersRoute} from "./api/models/loraAdaptersRoute.js";
import {chatCompletionsRoute} from "./api/openai-chat/chatCompletionsRoute.js";
import {responsesRoute} from "./api/openai-responses/responsesRoute.js";
import type {ResponsesService} from "./api/openai-responses/responsesService.js";
import {useAnthropicErrors} from "./api/anthropic-messages/anthropicErrors.js";
import {messagesRoute} from "./api/anthropic-messages/messagesRoute.js";
import type {MessagesService} from "./api/anthropic-messages/messagesService.js";
import {completionsRoute} from "./api/openai-completions/completionsRoute.js";
import type {CompletionService} from "./api/openai-completions/completionService.js";
import {embeddingsRoute} from "./api/openai-embeddings/embeddingsRoute.js";
import type {EmbeddingService} from "./api/openai-embeddings/embeddingService.js";
import {openAiErrors} from "./api/openai-shared/openAiErrors.js";
import {chatPromptRoute} from "./api/openai-chat/chatPromptRoute.js";
import {rerankPaths, rerankRoute} from "./api/rerank/rerankRoute.js";
import {RerankService} from "./api/rerank/rerankService.js";
import {tokensRoute} from "./api/tokens/tokensRoute.js";
import {TokenService} from "./api/tokens/tokenService.js";
import {useOllamaErrors} from "./api/ollama/ollamaErrors.js";
import {ollamaRoute} from "./api/ollama/ollamaRoute.js";

export type AppDependencies = {
    config: Pick<Config, "apiKeys" | "adminApiKeys" | "sharePrefixCache" | "corsOrigins" | "bodyLimit" | "logPrompts" | "host" | "allowedHosts" | "modelsDir" | "metricsWithoutKey">,
    logger: Logger,
    registry: ModelRegistry,
    /** The chat-shaped APIs' conversations (chat completions directly; Responses and Messages through their services). */
    conversations: ConversationService,
    /** OpenAI's Responses API, over the conversation service. */
    responses: ResponsesService,
    /** Anthropic's Messages API, over the conversation service. */
    messages: MessagesService,
    completions: CompletionService,
    embeddings: EmbeddingService,
    /** Aborted with an ApiError when the server stops serving: running replies end with that error. */
    stopping?: AbortSignal,
    /** How long a stream waits for a client that reads nothing before dropping it (default streamedBody.ts's streamStallMs; tests shorten it). */
    streamStallMs?: number,
    /** What runs the models ("CPU", "CUDA" …), as `GET /health` names it. */
    backend?: string,
    /** Counts every request and serves `GET /metrics`; absent (--no-metrics): neither, and /metrics is a 404. */
    metrics?: ServerMetrics,
    /** What `GET /health/ready` answers (api/health/readiness.ts); absent: always ready. */
    readiness?: () => Readiness,
    /** Shutdown's drain (http/drain.ts): once begun, API requests get a 503 shutting_down. */
    drain?: Drain
};

/** One API as app.ts mounts it: its routes, and where it answers errors in an envelope of its own, the paths that do. */
type MountedApi = {
    routes: RequestHandler,
    /** Marks `path` with the API's envelope before anything can refuse a request (a Host, a key, a body), so those refusals speak it too. */
    errors?: {path: string, mark: RequestHandler}
};

/**
 * The HTTP application, in the order a request meets it: request id and access log → OpenAI's
 * error envelope, or its API's own → metrics → Host check (DNS rebinding) → CORS (preflights end
 * here) → health (no key) → /metrics (/v1's key) → the drain's 503 (shutting down) → API key → JSON
 * body → the conversation's key (x-chatserve-session) → each API's routes → 405
 * or 404 → errors. It never listens; src/server.ts does, and supertest drives it directly in tests.
 */
export function createApp({config, logger, registry, conversations, responses, messages, completions, embeddings, stopping, streamStallMs, backend, metrics, readiness, drain}: AppDependencies): express.Express {
    const replies = new ReplyWriter({logger, logPrompts: config.logPrompts, stopping, streamStallMs});
    // One line per API.
    const apis: MountedApi[] = [
        {routes: modelsRoute(registry)},
        {routes: chatCompletionsRoute(conversations, replies)},
        {routes: responsesRoute(responses, replies)},
        {routes: messagesRoute(messages, replies), errors: {path: "/v1/messages", mark: useAnthropicErrors}},
        {routes: completionsRoute(completions, replies)},
        {routes: embeddingsRoute(embeddings, replies)},
        // llama-server's: reranking, tokens, a chat request's prompt (most outside /v1, as it serves them).
        {routes: rerankRoute(new RerankService(registry), replies)},
        {routes: tokensRoute(new TokenService(registry), replies)},
        {routes: chatPromptRoute(conversations)},
        {routes: loraAdaptersRoute(registry)},
        {routes: ollamaRoute({registry, conversations, completions, embeddings, modelsDir: config.modelsDir}, replies), errors: {path: "/api", mark: useOllamaErrors}}
    ];

    const app = express();
    app.disable("x-powered-by");
    app.set("etag", false);

    app.use(requestLog(logger));
    app.use(useErrorEnvelope(openAiErrors));
    for (const {errors} of apis) {
        if (errors != null)
            app.use(errors.path, errors.mark);
    }
    if (metrics != null)
        app.use(requestMetrics(metrics, registry));
    // Before anything answers, /health and CORS preflights included: a DNS-rebinding page gets nothing (hostCheck.ts).
    app.use(allowedHostsOnly(config.host, config.allowedHosts, config.apiKeys.length > 0));
    app.use(cors(config.corsOrigins));
    // The chat page, to browsers only: other clients probing `/` get healthRoute's JSON.
    app.use(webPageRoute());
    app.use(healthRoute(backend, readiness));
    if (metrics != null)
        app.use(metricsRoute(metrics, config.metricsWithoutKey ? [] : config.apiKeys));
    // Health and metrics still answer while the server drains; nothing else does.
    if (drain != null)
        app.use(drain.refuseNewRequests());
    app.use("/v1", requireApiKey(config.apiKeys, config.adminApiKeys));
    app.use("/v1", cachePartitions(config));
    // llama-server's paths outside /v1 take the same key.
    const rootApiPaths = [...rerankPaths.filter((path) => !path.startsWith("/v1/")), "/tokenize", "/detokenize", "/apply-template"];
    app.use(rootApiPaths, requireApiKey(config.apiKeys, config.adminApiKeys));
    app.use(rootApiPaths, cachePartitions(config));
    // Ollama's API (/api/*) takes the same key as /v1; `GET /` stays open, as Ollama's "is running" check.
    app.use("/api", requireApiKey(config.apiKeys, config.adminApiKeys));
    app.use("/api", cachePartitions(config));
    app.use(jsonBody(config.bodyLimit));
    // After the body: the conversation's key for load balancers, echoed as x-chatserve-session.
    app.use(sessionAffinity());
    app.use(adminOnly(config.adminApiKeys.length > 0));
    for (const {routes} of apis)
        app.use(routes);
    app.use(notFound);
    app.use(errorHandler(logger));
    return app;
}
