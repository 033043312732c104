import {Router} from "express";
import {BadRequestError} from "../../errors.js";
import type {ModelRegistry} from "../../models/modelRegistry.js";

/** One of a model's LoRA adapters as llama-server's GET /lora-adapters lists it. */
export type LoraAdapterEntry = {id: number, path: string, scale: number};

/**
 * llama-server's `GET /lora-adapters`: a model's adapters with their ids (a request's `lora` names
 * them by id) and the scales a request gets when it names none, as chatserve.json gives them. A
 * server of several models is told which by `?model=`, as llama-server's router is; without it, the
 * one model that has adapters (none: an empty list, as llama-server answers without --lora).
 *
 * `POST /lora-adapters` (llama-server's way to change those scales for everyone) is a 400 saying
 * where they are set instead: chatserve.json, whose change reloads the model with them; a request
 * sets its own with `lora`. One client changing every other client's replies in passing is not a
 * setting to hand out beside the chat routes.
 */
export function loraAdaptersRoute(registry: ModelRegistry): Router {
    const router = Router();
    router.get("/lora-adapters", async (req, res) => {
        const name = typeof req.query.model === "string" && req.query.model !== "" ? req.query.model : null;
        if (name != null) {
            res.locals.model = name;
            res.json(entriesOf((await registry.describe(name)).loraAdapters));
            return;
        }
        const withAdapters = registry.list().filter((model) => (model.loraAdapters?.length ?? 0) > 0);
        if (withAdapters.length > 1)
            throw new BadRequestError(`Several models have LoRA adapters (${withAdapters.map((model) => model.id).join(", ")}): name one, GET /lora-adapters?model=<id>.`,
                {param: "model", code: "missing_required_parameter"});
        res.json(entriesOf(withAdapters[0]?.loraAdapters));
    });
    router.post("/lora-adapters", () => {
        throw new BadRequestError("POST /lora-adapters is not supported by chatserve: a model's default LoRA scales are set in chatserve.json (\"lora\": [{\"path\", \"scale\"}], the model reloads with them), and a request sets its own with \"lora\": [{\"id\", \"scale\"}].",
            {code: "unsupported_parameter"});
    });
    return router;
}

function entriesOf(adapters: ReadonlyArray<{path: string, scale: number}> | undefined): LoraAdapterEntry[] {
    return (adapters ?? []).map(({path, scale}, id) => ({id, path, scale}));
}
