import {Router} from "express";

/**
 * `GET /health`: liveness for scripts and supervisors; needs no key. It names the compute backend
 * (`chatserve ps` shows it as a model's processor). `GET /` (and `HEAD /`, which Express answers
 * from it) says what this is: Claude Code probes its base URL before it starts.
 */
export function healthRoute(backend?: string): Router {
    const router = Router();
    router.get("/health", (_req, res) => {
        res.json(backend == null ? {status: "ok"} : {status: "ok", backend});
    });
    router.get("/", (_req, res) => {
        res.json({name: "chatserve", status: "ok", api: "/v1"});
    });
    return router;
}
