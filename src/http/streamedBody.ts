import type {Response} from "express";

/**
 * Bytes a stream may have waiting in the server for its client before its generation pauses. A
 * reader that keeps up never comes near it (an event is a few hundred bytes); one that stops
 * reading holds the generation here instead of making the server buffer all of it.
 */
export const streamHighWaterBytes = 64 * 1024;

/**
 * How long a paused stream waits for its client to read before the server drops it (closing the
 * connection, which aborts the generation and frees its sequence for others). A client on a slow
 * link drains within seconds; one that has stopped reading while keeping the connection open
 * would otherwise hold a sequence for ever.
 */
export const streamStallMs = 60_000;

/**
 * A response body written piece by piece as a generation runs: the headers every stream sends,
 * and the write that puts each piece on the wire at once. The framings (sseWriter.ts,
 * ndjsonWriter.ts) say what a piece looks like.
 */
export abstract class StreamedBody {
    protected constructor(
        protected readonly res: Response,
        private readonly contentType: string,
        private readonly stallMs = streamStallMs
    ) {}

    public open(): void {
        // Answered already (the server's stop): every later write is a no-op too.
        if (this.res.headersSent)
            return;
        this.res.status(200);
        this.res.setHeader("Content-Type", this.contentType);
        this.res.setHeader("Cache-Control", "no-cache");
        // No Connection header of our own: Node answers keep-alive or close as the request asked.
        // Forcing keep-alive held a `Connection: close` client's socket open for seconds after [DONE].
        // Tells nginx-style proxies not to buffer the stream.
        this.res.setHeader("X-Accel-Buffering", "no");
        this.res.flushHeaders();
        // Small writes must leave at once, not wait for Nagle's algorithm.
        this.res.socket?.setNoDelay(true);
    }

    /** Set when the server dropped a client that read nothing for stallMs: how long, and how much was waiting. */
    public dropped: {stallMs: number, waitingBytes: number} | undefined;

    /** The client left, or the stream ended (its last event, an error event, or the server's stop). */
    public get closed(): boolean {
        return this.res.writableEnded || this.res.destroyed;
    }

    /** Ends the stream (idempotent). */
    public close(): void {
        if (!this.res.writableEnded)
            this.res.end();
    }

    /** Bytes written and not yet taken by the client (in the response and in its socket). */
    public get backlog(): number {
        return this.res.writableLength + (this.res.socket?.writableLength ?? 0);
    }

    /**
     * Resolves when the stream may take more: at once while under streamHighWaterBytes, otherwise
     * once the client has read it down (the socket's `drain`) or gone. A client that reads nothing
     * for stallMs is dropped: its connection is destroyed, which aborts its generation.
     */
    public ready(): Promise<void> | undefined {
        if (this.closed || this.backlog <= streamHighWaterBytes)
            return undefined;
        const socket = this.res.socket;
        return new Promise<void>((resolve) => {
            const done = () => {
                clearTimeout(timer);
                socket?.off("drain", done);
                this.res.off("drain", done);
                this.res.off("close", done);
                resolve();
            };
            const timer = setTimeout(() => {
                // Kept for the writer's log line (replyWriter.ts): the operator sees why a stream ended early.
                this.dropped = {stallMs: this.stallMs, waitingBytes: this.backlog};
                this.res.destroy(new Error(`the client read nothing for ${this.stallMs} ms with ${this.backlog} bytes waiting`));
                done();
            }, this.stallMs);
            socket?.on("drain", done);
            this.res.on("drain", done);
            this.res.once("close", done);
        });
    }

    /** One piece of the body, unless the stream has closed. */
    protected writePiece(text: string): void {
        if (!this.closed)
            this.write(text);
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
}
