import type {NextFunction, Request, Response} from "express";
import type {GenerationResult} from "../engine/generationEvents.js";
import type {ServerMetrics} from "../metrics/serverMetrics.js";
import type {ModelRegistry} from "../models/modelRegistry.js";
import {clientClosedRequest} from "./requestLog.js";

/**
 * Counts every request once, when its response ends or its client leaves, from what the request's
 * log line reads too (res.locals: the model it named, its generation's usage, its error code). The
 * model label is the id the name stands for, so that an alias pattern such as `claude-*` cannot
 * grow a series per name a client makes up.
 */
export function requestMetrics(metrics: ServerMetrics, models: Pick<ModelRegistry, "idOf">) {
    return (req: Request, res: Response, next: NextFunction) => {
        const arrivedAt = performance.now();
        // Read now: a router mounted on a path rewrites req.path while it runs.
        const endpoint = endpointOf(req.method, req.path);
        res.on("close", () => {
            const clientLeft = !res.writableFinished;
            const finish = (usage: GenerationResult | undefined) => {
                const named = res.locals.model as string | undefined;
                metrics.requestFinished({
                    endpoint,
                    method: knownMethods.has(req.method) ? req.method : "other",
                    status: res.headersSent ? res.statusCode : clientClosedRequest,
                    model: named == null ? undefined : models.idOf(named),
                    usage,
                    errorCode: res.locals.errorCode as string | undefined,
                    clientLeft,
                    arrivedAt,
                    endedAt: performance.now()
                });
            };
            const usage = res.locals.usage as GenerationResult | undefined;
            if (usage != null || !clientLeft)
                return finish(usage);
            // A client that leaves mid-reply closes the response before its generation has stopped:
            // the route records what it generated a moment later (a token step, a prompt batch, an
            // encode's next check). A request that never got as far as generating records nothing.
            const waiting = setTimeout(() => finish(undefined), usageWaitMs);
            waiting.unref();
            res.locals.onUsage = (late: GenerationResult) => {
                clearTimeout(waiting);
                finish(late);
            };
        });
        next();
    };
}

/** How long a closed request waits for its generation to report what it generated. */
const usageWaitMs = 10_000;

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

const fixedEndpoints = new Set([
    "/", "/health", "/metrics", "/v1/models", "/v1/chat/completions", "/v1/completions", "/v1/embeddings",
    "/v1/responses", "/v1/responses/input_tokens", "/v1/messages", "/v1/messages/count_tokens",
    "/v1/rerank", "/rerank", "/v1/reranking", "/reranking", "/v2/rerank", "/tokenize", "/detokenize", "/apply-template", "/v1/chat/completions/input_tokens"
]);

/** The route a path belongs to, with its ids as placeholders; "other" for paths no route serves. */
export function endpointOf(method: string, path: string): string {
    // Express matches paths case-insensitively and with or without a trailing slash.
    const normalized = path.length > 1 ? path.replace(/\/+$/, "").toLowerCase() : path;
    if (fixedEndpoints.has(normalized))
        return normalized;
    if (normalized.startsWith("/v1/responses/"))
        return "/v1/responses/{id}";
    if (normalized.startsWith("/v1/models/")) {
        const action = method === "POST" ? /\/(load|unload)$/.exec(normalized)?.[1] : undefined;
        return action == null ? "/v1/models/{id}" : `/v1/models/{id}/${action}`;
    }
    return "other";
}
