import {createHash, timingSafeEqual} from "node:crypto";
import type {NextFunction, Request, Response} from "express";
import {AuthenticationError} from "../errors.js";

/**
 * Bearer-key check for `/v1`. Keys are compared as SHA-256 digests with `timingSafeEqual`, so the
 * time taken says nothing about how much of a guess was right (nor about the key's length).
 * Without configured keys every request passes, whatever header it carries: the official SDKs
 * always send one. With keys, `res.locals.keyOwner` identifies the key a request came with.
 */
export function requireApiKey(apiKeys: readonly string[]) {
    const digests = apiKeys.map(digest);
    return (req: Request, res: Response, next: NextFunction) => {
        if (digests.length === 0)
            return next();

        const header = req.get("authorization");
        const match = header != null ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
        if (match == null)
            throw new AuthenticationError("Missing API key: send it as 'Authorization: Bearer <key>'.");

        const offered = digest(match[1]!);
        // Check every key, not stopping at the first match: the time is the same whoever asks.
        const valid = digests.reduce((found, key) => timingSafeEqual(key, offered) || found, false);
        if (!valid)
            throw new AuthenticationError("Incorrect API key provided.");
        // Whose data a request may see (stored responses are kept per key): the key's digest, never the key.
        res.locals.keyOwner = offered.toString("hex");
        next();
    };
}

function digest(key: string): Buffer {
    return createHash("sha256").update(key).digest();
}
