import type {Response} from "express";
import type {Logger} from "pino";
import {toApiError, type ApiError} from "../errors.js";
import {errorEvent} from "./errorDialect.js";
import {recordError} from "./requestLog.js";

/**
 * Server-sent events as OpenAI streams them: `data: <json>` plus a blank line per event,
 * `data: [DONE]` at the end. Comment lines (`: …`) keep idle connections open; every
 * SSE client, the official SDKs included, ignores them.
 */
export class SseWriter {
    public constructor(private readonly res: Response) {}

    public open(): void {
        // Answered already (the server's stop): every later write is a no-op too.
        if (this.res.headersSent)
            return;
        this.res.status(200);
        this.res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
        this.res.setHeader("Cache-Control", "no-cache");
        // No Connection header of our own: Node answers keep-alive or close as the request asked.
        // Forcing keep-alive held a `Connection: close` client's socket open for seconds after [DONE].
        // Tells nginx-style proxies not to buffer the stream.
        this.res.setHeader("X-Accel-Buffering", "no");
        this.res.flushHeaders();
        // Small writes must leave at once, not wait for Nagle's algorithm.
        this.res.socket?.setNoDelay(true);
    }

    public get closed(): boolean {
        return this.res.writableEnded || this.res.destroyed;
    }

    public send(data: unknown): void {
        this.sendJson(JSON.stringify(data));
    }

    /** An event whose data is serialised already. */
    public sendJson(json: string): void {
        if (!this.closed)
            this.write(`data: ${json}\n\n`);
    }

    /** A named event (`event: <name>` before its data), as the Responses and Anthropic streams send them. */
    public sendEvent(name: string, json: string): void {
        if (!this.closed)
            this.write(`event: ${name}\ndata: ${json}\n\n`);
    }

    /** Ends a stream that has no `[DONE]` (the Responses API's ends with its last event). */
    public close(): void {
        this.end();
    }

    public comment(text: string): void {
        if (!this.closed)
            this.write(`: ${text}\n\n`);
    }

    /** A failure after the stream started: OpenAI clients raise an `error` event as an APIError (Anthropic's, its `error` event). */
    public fail(error: ApiError): void {
        recordError(this.res, error.toBody());
        if (!this.closed)
            this.write(errorEvent(this.res, error));
        this.end();
    }

    /** A generation that threw mid-stream: a bug is logged in full, the client gets its envelope. */
    public failWith(error: unknown, logger: Logger): void {
        const apiError = toApiError(error);
        if (apiError.status >= 500)
            logger.error({event: "stream_failed", reqId: this.res.locals.requestId, err: error}, "generation failed mid-stream");
        this.fail(apiError);
    }

    public done(): void {
        if (!this.closed)
            this.write("data: [DONE]\n\n");
        this.end();
    }

    /**
     * One piece of the body, as one chunk of HTTP/1.1's chunked encoding framed here and written
     * straight to the socket. `res.write` frames it as four pieces (size, CRLF, data, CRLF) that the
     * socket takes corked and flushes on the next tick as one `writev`: 190–240 µs of the JS thread
     * an event, against 117–140 this way (bench/README, "One write per event").
     * `res.write` stays for a response that is not on its socket (a pipelined request's, while the
     * one before it is still answered: Node holds its bytes until then) and for a body that is not
     * chunked (an HTTP/1.0 client's, which ends with the connection).
     */
    private write(text: string): void {
        const socket = this.res.socket;
        if (socket != null && socket.writable && (this.res as {chunkedEncoding?: boolean}).chunkedEncoding === true)
            socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
        else
            this.res.write(text);
    }

    private end(): void {
        if (!this.res.writableEnded)
            this.res.end();
    }
}
