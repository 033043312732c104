import {createHash} from "node:crypto";
import type {NextFunction, Request, Response} from "express";
import {BadRequestError} from "../errors.js";

/**
 * The conversation a request belongs to, as a key a load balancer can hash on so that every turn
 * reaches the replica whose prompt cache holds the conversation so far (docs/scaling.md).
 *
 * Where it comes from, first found wins:
 * 1. `x-chatserve-session`: the explicit header, for clients and proxies that set one. Its value is
 *    the key as it is.
 * 2. The session headers coding agents already send: Codex's `session_id` (its conversation id, the
 *    same as its `prompt_cache_key`) and Claude Code's `x-claude-code-session-id`.
 * 3. The body's keys: OpenAI's `prompt_cache_key` (meant for exactly this), Anthropic's
 *    `metadata.user_id`, then OpenAI's `user`.
 * A key from 2 or 3 is a digest of the value, never the value: a user id or an e-mail address must
 * not come back in a header that proxies log.
 *
 * Mounted after the JSON body is parsed. The key comes back on the response as `x-chatserve-session`,
 * so a client (or a router that learns from responses) can send it on the next turn; nginx itself
 * hashes on request headers, before any body is read, so for nginx only 1 and 2 count.
 */
export function sessionAffinity() {
    return (req: Request, res: Response, next: NextFunction) => {
        const key = sessionKeyOf(req.headers, req.body);
        if (key != null)
            res.setHeader(sessionHeader, key);
        next();
    };
}

export const sessionHeader = "x-chatserve-session";

/** The client headers that name a conversation, in the order they are read (the reference nginx.conf's order too). */
export const clientSessionHeaders = ["session_id", "x-claude-code-session-id"] as const;

/** Longer explicit keys are refused rather than echoed: a key is an id, not a payload. */
const maxExplicitKeyLength = 256;

export function sessionKeyOf(headers: Request["headers"], body: unknown): string | undefined {
    const explicit = single(headers[sessionHeader]);
    if (explicit != null) {
        if (explicit.length > maxExplicitKeyLength || !/^[\x21-\x7e]+$/.test(explicit))
            throw new BadRequestError(`The ${sessionHeader} header must be 1 to ${maxExplicitKeyLength} visible ASCII characters, without spaces.`, {code: "invalid_session_key"});
        return explicit;
    }
    for (const name of clientSessionHeaders) {
        const value = single(headers[name]);
        if (value != null)
            return digest(value);
    }
    const fromBody = bodyKey(body);
    return fromBody == null ? undefined : digest(fromBody);
}

function bodyKey(body: unknown): string | undefined {
    if (body == null || typeof body !== "object" || Array.isArray(body))
        return undefined;
    const fields = body as {prompt_cache_key?: unknown, metadata?: unknown, user?: unknown};
    const metadata = fields.metadata != null && typeof fields.metadata === "object" ? fields.metadata as {user_id?: unknown} : {};
    return [fields.prompt_cache_key, metadata.user_id, fields.user].find((value): value is string => typeof value === "string" && value.trim() !== "");
}

/** A header's value, not blank (Node joins a header sent twice with ", ", which an explicit key then refuses). */
function single(value: string | string[] | undefined): string | undefined {
    if (typeof value !== "string")
        return undefined;
    const trimmed = value.trim();
    return trimmed === "" ? undefined : trimmed;
}

/** The same value from a header or a body gives the same key (Codex sends its conversation id as both). */
function digest(value: string): string {
    return createHash("sha256").update(value).digest("hex").slice(0, 32);
}
