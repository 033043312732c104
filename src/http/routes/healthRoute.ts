import {Router} from "express";

/**
 * `GET /health`: liveness for scripts and supervisors; needs no key. `GET /` (and `HEAD /`, which
 * Express answers from it) says what this is: Claude Code probes its base URL before it starts.
 */
export function healthRoute(): Router {
    const router = Router();
    router.get("/health", (_req, res) => {
        res.json({status: "ok"});
    });
    router.get("/", (_req, res) => {
        res.json({name: "chatserve", status: "ok", api: "/v1"});
    });
    return router;
}
