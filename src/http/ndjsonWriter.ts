import type {Response} from "express";
import type {ApiError} from "../errors.js";
import {envelopeOf} from "./errorEnvelope.js";
import {recordError} from "./requestLog.js";
import {StreamedBody} from "./streamedBody.js";

/**
 * Newline-delimited JSON, as Ollama's API streams: one JSON object per line, nothing else. It has
 * no comments and no event names, so a long prompt's progress sends nothing (the reply's
 * format may send an object of its own) and an error is one more line, in the request's envelope.
 */
export class NdjsonWriter extends StreamedBody {
    public constructor(res: Response, stallMs?: number) {
        super(res, "application/x-ndjson", stallMs);
    }

    public send(data: unknown): void {
        this.sendJson(JSON.stringify(data));
    }

    /** A line whose object is serialised already (JSON.stringify never writes a newline). */
    public sendJson(json: string): void {
        this.writePiece(`${json}\n`);
    }

    /** A failure after the stream started: the envelope's error object as the last line. */
    public fail(error: ApiError): void {
        recordError(this.res, error);
        this.send(envelopeOf(this.res).streamEvent(error).data);
        this.close();
    }
}
