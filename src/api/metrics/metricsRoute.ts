import {Router} from "express";
import type {ServerMetrics} from "../../metrics/serverMetrics.js";
import {requireApiKey} from "../../http/auth.js";

/**
 * `GET /metrics`: Prometheus's text exposition format. It tells how busy the server is and which
 * models it holds, so it asks for the same key as `/v1` when keys are set (a scrape config sends
 * it as `authorization: {credentials: ...}`).
 */
export function metricsRoute(metrics: ServerMetrics, apiKeys: readonly string[]): Router {
    const router = Router();
    router.get("/metrics", requireApiKey(apiKeys), async (_req, res) => {
        const {contentType, text} = await metrics.scrape();
        res.set("Content-Type", contentType).send(text);
    });
    return router;
}
