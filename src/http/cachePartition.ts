import type {NextFunction, Request, RequestHandler, Response} from "express";
import type {CachePartition} from "../engine/generationOptions.js";

/**
 * Which cache partition a request's prompts go in: with several API keys, each key's own (unless
 * `--share-prefix-cache`), so one key's client never reuses, and so never learns from `cached_tokens`
 * or from a reply's speed, what another key's client sent (engine/cachePartitions.ts). With one key
 * or none, every request shares the caches, as one client's would. The partition is the key's
 * SHA-256 (auth.ts's `keyOwner`), never the key itself. Mounted after the key check.
 */
export function cachePartitions(settings: {apiKeys: readonly string[], sharePrefixCache: boolean}): RequestHandler {
    const perKey = new Set(settings.apiKeys).size > 1 && !settings.sharePrefixCache;
    return (_req: Request, res: Response, next: NextFunction) => {
        if (perKey)
            res.locals.cachePartition = res.locals.keyOwner as string | undefined;
        next();
    };
}

/** The request's cache partition; undefined: the caches every request shares. */
export function cachePartitionOf(res: Response): CachePartition | undefined {
    return res.locals.cachePartition as CachePartition | undefined;
}
