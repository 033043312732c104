import type {Response} from "express";
import type {ApiError} from "../errors.js";
import {envelopeOf} from "./errorEnvelope.js";
import {recordError} from "./requestLog.js";
import {StreamedBody} from "./streamedBody.js";

/**
 * Server-sent events as OpenAI streams them: `data: <json>` plus a blank line per event,
 * `data: [DONE]` at the end. Comment lines (`: …`) keep idle connections open; every
 * SSE client, the official SDKs included, ignores them.
 */
export class SseWriter extends StreamedBody {
    public constructor(res: Response, stallMs?: number) {
        super(res, "text/event-stream; charset=utf-8", stallMs);
    }

    public send(data: unknown): void {
        this.sendJson(JSON.stringify(data));
    }

    /** An event whose data is serialised already. */
    public sendJson(json: string): void {
        this.writePiece(`data: ${json}\n\n`);
    }

    /** A named event (`event: <name>` before its data), as the Responses and Anthropic streams send them. */
    public sendEvent(name: string, json: string): void {
        this.writePiece(`event: ${name}\ndata: ${json}\n\n`);
    }

    public comment(text: string): void {
        this.writePiece(`: ${text}\n\n`);
    }

    /**
     * A failure after the stream started, as the request's API words it (errorEnvelope.ts), then
     * the end: OpenAI's clients raise its data-only `error` event as an APIError, Anthropic's its
     * `error` event.
     */
    public fail(error: ApiError): void {
        recordError(this.res, error);
        const {name, data} = envelopeOf(this.res).streamEvent(error);
        if (name == null)
            this.send(data);
        else
            this.sendEvent(name, JSON.stringify(data));
        this.close();
    }

    /** OpenAI's end of a stream; the Responses and Anthropic streams end with their last event instead. */
    public done(): void {
        this.writePiece("data: [DONE]\n\n");
        this.close();
    }
}
