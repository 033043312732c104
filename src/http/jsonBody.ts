import express, {type NextFunction, type Request, type Response} from "express";
import {UnsupportedMediaTypeError} from "../errors.js";

/**
 * Parses request bodies as JSON. Besides `application/json`, bodies without a Content-Type and
 * curl's default (`-d` sends application/x-www-form-urlencoded) are read as JSON too, as
 * llama-server does; anything else (multipart, XML, …) is a 415. Malformed JSON and oversized
 * bodies surface as body-parser errors, which the error handler turns into 400 and 413.
 */
const jsonLikeTypes = ["application/json", "application/*+json", "text/plain", "application/x-www-form-urlencoded"];

export function jsonBody(limit: string) {
    const parse = express.json({limit, type: (req) => !req.headers["content-type"] || express.request.is.call(req as Request, jsonLikeTypes) !== false, strict: false});
    return (req: Request, res: Response, next: NextFunction) => {
        const hasBody = req.headers["content-length"] !== "0" && (req.headers["content-length"] != null || req.headers["transfer-encoding"] != null);
        if (hasBody && req.headers["content-type"] != null && !req.is(jsonLikeTypes))
            throw new UnsupportedMediaTypeError(req.headers["content-type"]);
        parse(req, res, next);
    };
}
