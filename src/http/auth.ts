import {createHash, timingSafeEqual} from "node:crypto";
import type {NextFunction, Request, Response} from "express";
import {AuthenticationError, BadRequestError} from "../errors.js";

/**
 * Bearer-key check for `/v1`. Keys are compared as SHA-256 digests with `timingSafeEqual`, so the
 * time taken says nothing about how much of a guess was right (nor about the key's length).
 * Without configured keys every request passes, whatever header it carries: the official SDKs
 * always send one. With keys, `res.locals.keyOwner` identifies the key a request came with, and
 * `res.locals.admin` says whether it is one of `adminKeys` (which `apiKeys` holds too).
 */
export function requireApiKey(apiKeys: readonly string[], adminKeys: readonly string[] = []) {
    const digests = apiKeys.map(digest);
    const adminDigests = adminKeys.map(digest);
    return (req: Request, res: Response, next: NextFunction) => {
        rejectConflictingCredentials(req);
        if (digests.length === 0)
            return next();

        const key = offeredKey(req);
        if (key == null)
            throw new AuthenticationError("Missing API key: send it as 'Authorization: Bearer <key>' (or Anthropic's 'x-api-key: <key>').");

        const offered = digest(key);
        // Check every key, not stopping at the first match: the time is the same whoever asks.
        const valid = digests.reduce((found, key) => timingSafeEqual(key, offered) || found, false);
        if (!valid)
            throw new AuthenticationError("Incorrect API key provided.");
        // What only an admin key may do: adminOnly.ts.
        res.locals.admin = adminDigests.reduce((found, key) => timingSafeEqual(key, offered) || found, false);
        // Whose data a request may see (stored responses are kept per key): the key's digest, never the key.
        res.locals.keyOwner = offered.toString("hex");
        next();
    };
}

/**
 * Two `Authorization` (or `x-api-key`) headers that differ: Node keeps the first Authorization and
 * joins x-api-keys, while a proxy in front may have checked the other one. Which key was meant is
 * not for chatserve to guess, with keys or without.
 */
function rejectConflictingCredentials(req: Request): void {
    for (const header of ["Authorization", "x-api-key"]) {
        const values = req.headersDistinct[header.toLowerCase()] ?? [];
        if (new Set(values.map((value) => value.trim())).size > 1)
            throw new BadRequestError(`The request has ${values.length} ${header} headers that differ: send one.`, {param: header, code: "conflicting_headers"});
    }
}

/** The key a request offers: OpenAI's `Authorization: Bearer`, or Anthropic's `x-api-key` (its SDKs and Claude Code send that). */
function offeredKey(req: Request): string | null {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get("authorization")?.trim() ?? "");
    if (bearer != null)
        return bearer[1]!;
    const apiKey = req.get("x-api-key")?.trim();
    return apiKey == null || apiKey === "" ? null : apiKey;
}

function digest(key: string): Buffer {
    return createHash("sha256").update(key).digest();
}
