import {existsSync} from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {Router, type Response} from "express";
import {webPageHeaders, wantsHtml} from "./webPageHeaders.js";

/** Where `npm run build` puts the page (scripts/buildWebPage.mjs): dist/web, from src/ (tests) and dist/ alike. */
export const defaultWebDir = fileURLToPath(new URL("../../../dist/web/", import.meta.url));

/** The page's files: everything it loads is here, so nothing leaves for the network. */
const assets: Record<string, string> = {"/chat/app.js": "app.js", "/chat/app.css": "app.css"};

/**
 * The chat page: `GET /` to a browser (Accept names text/html) gets web/'s page; anything else
 * falls through to healthRoute's JSON, as clients that probe `/` expect. Its assets at /chat/*.
 * The page needs no key (it holds no data); the API calls it makes do. Where the page was not
 * built (a checkout without `npm run build`), browsers get the JSON too.
 */
export function webPageRoute(webDir = defaultWebDir): Router {
    const router = Router();
    const send = (res: Response, file: string) => {
        res.set(webPageHeaders);
        res.sendFile(path.join(webDir, file));
    };
    router.get("/", (req, res, next) => {
        // One URL, two answers: a cache must keep them apart.
        res.vary("Accept");
        if (!wantsHtml(req.get("accept")) || !existsSync(path.join(webDir, "index.html")))
            return next();
        send(res, "index.html");
    });
    for (const [route, file] of Object.entries(assets)) {
        router.get(route, (_req, res, next) => {
            if (!existsSync(path.join(webDir, file)))
                return next();
            send(res, file);
        });
    }
    return router;
}
