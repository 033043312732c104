import {Router} from "express";
import type {ModelRegistry} from "../../models/modelRegistry.js";
import type {ModelList} from "../../protocol/models.js";

/** `GET /v1/models` and `GET /v1/models/{id}` (ids of models in subfolders contain a slash). */
export function modelsRoute(registry: ModelRegistry): Router {
    const router = Router();
    router.get("/v1/models", (_req, res) => {
        res.json({object: "list", data: registry.list()} satisfies ModelList);
    });
    router.get("/v1/models/*id", async (req, res) => {
        const id = (req.params as {id: string[]}).id.join("/");
        res.json(await registry.describe(id));
    });
    return router;
}
