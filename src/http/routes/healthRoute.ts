import {Router} from "express";

/** `GET /health`: liveness for scripts and supervisors; needs no key. */
export function healthRoute(): Router {
    const router = Router();
    router.get("/health", (_req, res) => {
        res.json({status: "ok"});
    });
    return router;
}
