import fs from "node:fs/promises";
import path from "node:path";
import {Router} from "express";
import {BadRequestError, ModelNotFoundError} from "../../errors.js";
import {findModelFiles} from "../../models/modelFiles.js";
import type {ModelRegistry} from "../../models/modelRegistry.js";
import {parseBody} from "../parseBody.js";
import {modelNamed, namedModelSchema} from "./ollamaRequest.js";

/**
 * `DELETE /api/delete`: the model's files leave the models folder (every part of a split model;
 * its projector stays, as another model may pair with it), after it is unloaded once its running
 * requests end. Only files the folder's scan lists as a model are touched: a name is never a path.
 * An alias names another model's files, so it is refused rather than deleting them. Like a pull,
 * it changes the folder for everyone: the key, and the admin key where one is set.
 */
export function deleteRoute(registry: ModelRegistry, modelsDir: string): Router {
    const router = Router();
    router.delete("/api/delete", async (req, res) => {
        const name = modelNamed(parseBody(namedModelSchema, req.body ?? {}));
        res.locals.model = name;
        // `id:latest` is the model `id` (models/modelLookup.ts); any other name the lookup maps elsewhere is an alias.
        const id = registry.idOf(name) ?? name;
        if (id !== name && id !== name.replace(/:latest$/, ""))
            throw new BadRequestError(`'${name}' is an alias of '${id}': delete that model by its own name, or remove the alias.`, {param: "model", code: "invalid_value"});
        const group = (await findModelFiles(modelsDir)).find((candidate) => candidate.id === id);
        if (group == null)
            throw new ModelNotFoundError(name);
        await registry.unload(id).catch(() => undefined);
        const root = path.resolve(modelsDir);
        for (const file of group.files) {
            // The scan lists files under the models folder only; checked again, as this deletes.
            if (path.resolve(file).startsWith(root + path.sep))
                await fs.rm(file, {force: true});
        }
        // Gone from the listing at once, not at the next periodic rescan.
        await registry.rescan();
        res.status(200).end();
    });
    return router;
}
