import {Router} from "express";
import type {Readiness} from "./readiness.js";

/**
 * `GET /health`: liveness for scripts and supervisors; needs no key. It names the compute backend
 * (`chatserve ps` shows it as a model's processor). `GET /health/ready`: readiness for load
 * balancers and orchestrators (readiness.ts says when it is 503); no key either, as probes carry
 * none. `GET /` (and `HEAD /`, which Express answers from it) says what this is: Claude Code probes
 * its base URL before it starts.
 */
export function healthRoute(backend?: string, readiness?: () => Readiness): Router {
    const router = Router();
    router.get("/health", (_req, res) => {
        res.json(backend == null ? {status: "ok"} : {status: "ok", backend});
    });
    router.get("/health/ready", (_req, res) => {
        const now = readiness?.() ?? {ready: true};
        // A probe must see now, never a cached answer from a proxy in between.
        res.setHeader("Cache-Control", "no-store");
        if (now.ready) {
            res.json({status: "ready"});
            return;
        }
        res.status(503).setHeader("Retry-After", String(now.retryAfterSeconds));
        res.json({status: "not_ready", reason: now.reason, message: now.message});
    });
    router.get("/", (_req, res) => {
        res.json({name: "chatserve", status: "ok", api: "/v1"});
    });
    return router;
}
