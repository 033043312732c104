import pino, {type Logger} from "pino";
import type {Config} from "./config.js";

/**
 * The root logger: structured JSON lines on stdout. Request lines never carry headers or bodies;
 * the redaction list is a second line of defence should a header object ever be logged.
 */
export function createLogger(level: Config["logLevel"], destination?: pino.DestinationStream): Logger {
    return pino({
        level,
        base: undefined,
        redact: {paths: ["req.headers.authorization", "headers.authorization", "authorization"], censor: "[redacted]"}
    }, destination ?? pino.destination({dest: 1, sync: false}));
}
