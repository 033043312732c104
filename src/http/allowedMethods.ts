import type {Request} from "express";

/** What chatserve needs of the router's layers (the `router` package behind Express 5). */
type Layer = {
    match(path: string): {path: string} | false,
    route?: {methods: Record<string, boolean | undefined>},
    handle: unknown
};

/**
 * The methods the app's routes answer on a request's path: what a 405's `Allow` header lists, and
 * empty when no route has the path (a 404). Read from the router itself rather than from a list
 * kept beside it, so a new route is covered the day it is added. A route with GET answers HEAD too,
 * as Express does.
 */
export function allowedMethods(req: Request): string[] {
    const router = (req.app as unknown as {router?: {stack?: Layer[]}}).router;
    const methods = new Set<string>();
    collect(router?.stack ?? [], req.path, methods);
    return [...methods];
}

function collect(stack: readonly Layer[], path: string, into: Set<string>): void {
    for (const layer of stack) {
        const match = layer.match(path);
        if (match === false)
            continue;
        if (layer.route != null) {
            for (const [method, handled] of Object.entries(layer.route.methods))
                if (handled === true && method !== "_all")
                    into.add(method.toUpperCase());
            if (layer.route.methods.get === true)
                into.add("HEAD");
            continue;
        }
        // A router mounted with app.use(): its own routes, on what is left of the path.
        const nested = (layer.handle as {stack?: unknown} | null)?.stack;
        if (Array.isArray(nested))
            collect(nested as Layer[], path.slice(match.path.length) || "/", into);
    }
}
