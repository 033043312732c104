import {Router} from "express";
import type {ModelRegistry} from "../../models/modelRegistry.js";
import {parseBody} from "../parseBody.js";
import {toOllamaRunning, toOllamaTag} from "./ollamaModels.js";
import {modelNamed, namedModelSchema} from "./ollamaRequest.js";
import {toShowResponse} from "./showResponse.js";

/**
 * The Ollama API level chatserve answers as: clients check it (VS Code Copilot refuses below 0.6.4,
 * and compares it as numbers). It is the Ollama release whose API (thinking, tool call ids and
 * indexes, `/api/ps`' context_length) the routes here follow.
 */
export const ollamaApiVersion = "0.12.0";

/**
 * What Ollama's clients ask before anything else: `GET /api/version`, `GET /api/tags` (the models),
 * `POST /api/show` (one model: its context, capabilities, template) and `GET /api/ps` (those
 * loaded). HEAD on each GET is answered by Express from the GET, as Ollama answers it.
 */
export function discoveryRoute(registry: ModelRegistry): Router {
    const router = Router();
    router.get("/api/version", (_req, res) => {
        res.json({version: ollamaApiVersion});
    });

    router.get("/api/tags", (_req, res) => {
        // A model that cannot be served (an unreadable file, a dangling alias) is left out: a client would offer it and fail.
        res.json({models: registry.list().filter((model) => model.status !== "unavailable").map(toOllamaTag)});
    });

    router.post("/api/show", async (req, res) => {
        const name = modelNamed(parseBody(namedModelSchema, req.body ?? {}));
        res.locals.model = name;
        res.json(toShowResponse(await registry.describe(name)));
    });

    router.get("/api/ps", (_req, res) => {
        res.json({models: registry.list().filter((model) => model.status === "loaded" && model.aliasFor == null).map(toOllamaRunning)});
    });
    return router;
}
