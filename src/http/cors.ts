import type {NextFunction, Request, Response} from "express";
import {ApiError} from "../errors.js";

/**
 * CORS for browser and editor-webview clients.
 *
 * Default (no `--cors-origin`): pages served from this machine (http://localhost:*, 127.0.0.1,
 * [::1]) and editor/desktop webviews (vscode-webview://, app://, tauri://) may call the API; an
 * arbitrary web page on the internet may neither read the user's local models nor run them. The
 * opaque origin "null" is not allowed by default: any web page can send it from a sandboxed iframe.
 * `--cors-origin '*'` allows every origin; `--cors-origin URL` (repeatable) adds exact origins.
 */
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);
const webviewSchemes = new Set(["vscode-webview:", "vscode-file:", "app:", "tauri:"]);

export function isAllowedOrigin(origin: string, allowed: readonly string[]): boolean {
    if (allowed.includes("*") || allowed.includes(origin))
        return true;
    try {
        const url = new URL(origin);
        if (webviewSchemes.has(url.protocol))
            return true;
        return (url.protocol === "http:" || url.protocol === "https:") && loopbackHosts.has(url.hostname);
    } catch {
        return false;
    }
}

export function cors(allowed: readonly string[]) {
    return (req: Request, res: Response, next: NextFunction) => {
        const origin = req.get("origin");
        if (origin == null)
            return next();

        res.vary("Origin");
        const permitted = isAllowedOrigin(origin, allowed);
        if (permitted) {
            res.setHeader("Access-Control-Allow-Origin", origin);
            res.setHeader("Access-Control-Expose-Headers", "x-request-id, retry-after");
        }

        // A page on another site may send a "simple" POST (text/plain, form-encoded) without asking
        // first, and chatserve reads those bodies as JSON (curl sends them): it would run a generation
        // for a page that may not even read the answer. JSON bodies need the preflight refused below;
        // clients exempt from CORS (browser extensions) send JSON and are still served.
        if (!permitted && req.method === "POST" && !req.is(["application/json", "application/*+json"]))
            throw originNotAllowed(origin);
        if (req.method !== "OPTIONS" || req.get("access-control-request-method") == null)
            return next();

        // Preflight: answered here, before authentication (browsers never send credentials on it).
        if (!permitted)
            throw originNotAllowed(origin);
        res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
        res.setHeader("Access-Control-Allow-Headers", req.get("access-control-request-headers") ?? "authorization, content-type");
        res.setHeader("Access-Control-Max-Age", "600");
        // Chrome asks before a public site may call a server on this machine (Private Network Access).
        if (req.get("access-control-request-private-network") === "true")
            res.setHeader("Access-Control-Allow-Private-Network", "true");
        res.status(204).end();
    };
}

function originNotAllowed(origin: string): ApiError {
    return new ApiError(403, `Origin ${origin} is not allowed. Start chatserve with --cors-origin ${origin} (or --cors-origin '*') to allow it.`,
        "invalid_request_error", "cors_origin_not_allowed");
}
