import {Router} from "express";
import type {ReplyWriter} from "../../http/replyWriter.js";
import {deleteRoute} from "./deleteRoute.js";
import {discoveryRoute} from "./discoveryRoute.js";
import {generationRoute} from "./generationRoute.js";
import {OllamaService, type OllamaServiceDependencies} from "./ollamaService.js";
import {pullRoute} from "./pullRoute.js";

/**
 * Ollama's REST API on chatserve's own port, for the clients that speak only it (VS Code Copilot's
 * Ollama provider, Zed, Continue's ollama provider, Open WebUI …). Errors on `/api/*` are Ollama's
 * `{"error": "…"}` (ollamaErrors.ts, marked in app.ts).
 */
export function ollamaRoute(dependencies: OllamaServiceDependencies & {modelsDir: string}, replies: ReplyWriter): Router {
    const router = Router();
    router.use(discoveryRoute(dependencies.registry));
    router.use(generationRoute(new OllamaService(dependencies), replies));
    // They change the models folder: the key, and the admin key where one is set (http/adminOnly.ts).
    router.use(pullRoute(dependencies.registry, dependencies.modelsDir, replies));
    router.use(deleteRoute(dependencies.registry, dependencies.modelsDir));
    return router;
}
