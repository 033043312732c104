import {Router} from "express";
import {NotFoundError} from "../../errors.js";
import type {ModelRegistry} from "../../models/modelRegistry.js";
import {modelLoadRequestSchema} from "./modelLoadRequest.js";
import type {ModelList} from "./models.js";
import {toModelObject} from "./toModelObject.js";
import {parseBody} from "../parseBody.js";

/**
 * `GET /v1/models` and `GET /v1/models/{id}` (ids of models in subfolders contain a slash), and
 * chatserve's `POST /v1/models/{id}/load` and `/unload`: warm a model before its first request, or
 * free its memory (once its running requests end). Each answers with the model's entry.
 */
export function modelsRoute(registry: ModelRegistry): Router {
    const router = Router();
    router.get("/v1/models", (_req, res) => {
        res.json({object: "list", data: registry.list().map(toModelObject)} satisfies ModelList);
    });
    router.get("/v1/models/*id", async (req, res) => {
        const id = (req.params as {id: string[]}).id.join("/");
        res.json(toModelObject(await registry.describe(id)));
    });
    router.post("/v1/models/*path", async (req, res) => {
        const segments = (req.params as {path: string[]}).path;
        const action = segments.at(-1);
        if (segments.length < 2 || (action !== "load" && action !== "unload"))
            throw new NotFoundError(`Unknown request URL: POST ${req.path}. A model is loaded with POST /v1/models/{id}/load and unloaded with POST /v1/models/{id}/unload.`, "unknown_url");
        const id = segments.slice(0, -1).join("/");
        res.locals.model = id;
        if (action === "load") {
            const body = parseBody(modelLoadRequestSchema, req.body ?? {});
            res.json(toModelObject(await registry.warm(id, {keepAlive: body.keep_alive})));
        } else
            res.json(toModelObject(await registry.unload(id)));
    });
    return router;
}
