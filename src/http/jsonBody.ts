import express, {type NextFunction, type Request, type Response} from "express";
import {PayloadTooLargeError, UnsupportedMediaTypeError} from "../errors.js";
import {assertUtf8Json} from "./utf8Body.js";

/**
 * Parses request bodies as JSON. Besides `application/json`, bodies without a Content-Type and
 * curl's default (`-d` sends application/x-www-form-urlencoded) are read as JSON too, as
 * llama-server does; anything else (multipart, XML, …) is a 415. Malformed JSON and oversized
 * bodies surface as body-parser errors, which the error handler turns into 400 and 413.
 *
 * A body declared larger than the limit gets its 413 at once: body-parser answers only once the
 * whole body has arrived. The rest is then read and dropped within bounds (lingeringClose.ts), so
 * that a client still writing it reads the 413 rather than a reset.
 */
const jsonLikeTypes = ["application/json", "application/*+json", "text/plain", "application/x-www-form-urlencoded"];

export function jsonBody(limit: string) {
    const maxBytes = byteCount(limit);
    const parse = express.json({
        limit: maxBytes,
        type: (req) => !req.headers["content-type"] || express.request.is.call(req as Request, jsonLikeTypes) !== false,
        strict: false,
        // Stray bytes would become U+FFFD; a body in UTF-16 or UTF-32 (which body-parser also reads) is not UTF-8's to check.
        verify: (_req, _res, body, encoding) => {
            if (/^utf-?8$/i.test(encoding))
                assertUtf8Json(body);
        }
    });
    return (req: Request, res: Response, next: NextFunction) => {
        if (Number(req.headers["content-length"]) > maxBytes)
            throw new PayloadTooLargeError(`${maxBytes} bytes`);
        const hasBody = req.headers["content-length"] !== "0" && (req.headers["content-length"] != null || req.headers["transfer-encoding"] != null);
        if (hasBody && req.headers["content-type"] != null && !req.is(jsonLikeTypes))
            throw new UnsupportedMediaTypeError(req.headers["content-type"]);
        parse(req, res, next);
    };
}

/** "8mb", "200b", "1kb" (units of 1024, as body-parser reads them) → bytes. */
function byteCount(limit: string): number {
    const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(limit.trim());
    if (match == null)
        throw new Error(`the body limit '${limit}' is not a size such as 8mb`);
    const unit = {b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3}[(match[2] ?? "b").toLowerCase() as "b"];
    return Math.floor(Number(match[1]) * unit);
}
