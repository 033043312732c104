import type {NextFunction, Request, Response} from "express";
import {ApiError} from "../errors.js";

/**
 * What only an admin key may do once one is configured (`--admin-api-key`): change what stays
 * loaded for everyone. That is loading and unloading a model (`POST /v1/models/{id}/load`,
 * `/unload`), pulling and deleting one (Ollama's `POST /api/pull`, `DELETE /api/delete`, which
 * change the models folder) and `keep_alive` in any request: `-1` pins a model so that nothing else can take its
 * memory, `0` unloads it after the request, out from under other users. Another key gets a 403
 * naming what needs the admin key; the model's settings and --keep-alive still apply to its
 * requests. With no admin key configured, every key may (a single user's or a single team's server).
 * Mounted after the key check (which marks admin keys) and the JSON body.
 */
export function adminOnly(adminKeysConfigured: boolean) {
    return (req: Request, res: Response, next: NextFunction) => {
        if (!adminKeysConfigured || res.locals.admin === true)
            return next();
        // Case-insensitive, as Express's routing is: /V1/Models/x/unload reaches the same route.
        const action = req.method === "POST" ? /^\/v1\/models\/.+\/(load|unload)$/i.exec(req.path)?.[1] : undefined;
        if (action != null)
            throw adminRequired(`${action.toLowerCase() === "load" ? "Loading" : "Unloading"} a model changes what is loaded for everyone`, null);
        // Ollama's pull and delete change the models folder itself.
        if ((req.method === "POST" && /^\/api\/pull$/i.test(req.path)) || (req.method === "DELETE" && /^\/api\/delete$/i.test(req.path)))
            throw adminRequired(`${req.method === "POST" ? "Pulling" : "Deleting"} a model changes the models folder for everyone`, null);
        const body = req.body as Record<string, unknown> | undefined;
        if (body != null && typeof body === "object" && body.keep_alive != null)
            throw adminRequired("'keep_alive' decides how long a model stays loaded for everyone; leave it out to get the model's own", "keep_alive");
        next();
    };
}

function adminRequired(what: string, param: string | null): ApiError {
    return new ApiError(403, `${what}: it needs an admin key (--admin-api-key), and this request's key is not one.`,
        "invalid_request_error", "admin_key_required", param);
}
