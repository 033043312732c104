import type {Response} from "express";
import type {Logger} from "pino";
import type {GenerationResult} from "../engine/generationEvents.js";
import {toApiError, type ApiError} from "../errors.js";
import {abortWhenClientLeaves} from "./clientAbort.js";
import {consumeGeneration} from "./consumeGeneration.js";
import {NdjsonWriter} from "./ndjsonWriter.js";
import type {JsonReplyFormat, ReplyFormat, StreamReplyFormat} from "./replyFormat.js";
import {limitReplySize, maxJsonReplyBytes} from "./replySizeGuard.js";
import {abandoned, recordError, recordUsage} from "./requestLog.js";
import {SseWriter} from "./sseWriter.js";

export type ReplyWriterOptions = {
    logger: Logger,
    /** --log-prompts: a request's prompt is logged (it is the user's data: only when the operator asked). */
    logPrompts: boolean,
    /** Aborted when the server stops serving: running replies end with its reason. */
    stopping?: AbortSignal,
    /** How long a stream waits for a client that reads nothing (streamedBody.ts); tests shorten it. */
    streamStallMs?: number
};

/** A stream's framing, as the writer uses it (sseWriter.ts, ndjsonWriter.ts). */
type ReplyStream = {
    open(): void,
    readonly closed: boolean,
    /** Keeps an idle connection open during a long prompt (SSE's comment line); a framing without one sends nothing. */
    comment?(text: string): void,
    /** Pauses the generation while the client is behind (streamedBody.ts). */
    ready(): Promise<void> | undefined,
    fail(error: ApiError): void,
    close(): void,
    /** Set when the server dropped a client that read nothing for too long (streamedBody.ts). */
    readonly dropped?: {stallMs: number, waitingBytes: number}
};

/**
 * Where a generation becomes a reply, for every API. A route parses its request, starts its
 * generation with `begin`'s signal, and hands `json`, `sse` or `ndjson` the generation's release
 * and its API's format (replyFormat.ts); the writer owns the rest: the framing, the abort (a
 * generation that ended aborted, or a reply its client left or the server's stop answered), the
 * usage in the log line and /metrics (an abandoned reply's tokens count too), a failure once the
 * headers are out, and the release, in a finally.
 */
export class ReplyWriter {
    public constructor(private readonly options: ReplyWriterOptions) {}

    /**
     * A request's reply begins: its model named for its log line and /metrics, its prompt logged when
     * the operator asked, and the signal that stops its work when the client leaves or the server stops.
     */
    public begin(res: Response, model: string, prompt?: Record<string, unknown>): AbortSignal {
        res.locals.model = model;
        if (this.options.logPrompts && prompt != null)
            this.options.logger.info({event: "prompt", reqId: res.locals.requestId, model, ...prompt});
        return abortWhenClientLeaves(res, this.options.stopping);
    }

    /** The reply as one JSON body. A failure before it is sent goes on to the error handler, which answers with its status. */
    public async json(res: Response, release: () => void, format: () => JsonReplyFormat): Promise<void> {
        try {
            const reply = format();
            // Answered already: the server's stop sent its 503 (as it may have just as the reply ended).
            const usage = await this.generate(res, reply, () => res.headersSent);
            if (usage != null)
                res.json(reply.body(usage));
        } finally {
            release();
        }
    }

    /** The reply as server-sent events. */
    public sse(res: Response, release: () => void, format: (sse: SseWriter) => StreamReplyFormat): Promise<void> {
        return this.stream(res, new SseWriter(res, this.options.streamStallMs), release, format);
    }

    /** The reply as newline-delimited JSON (Ollama's streams). */
    public ndjson(res: Response, release: () => void, format: (ndjson: NdjsonWriter) => StreamReplyFormat): Promise<void> {
        return this.stream(res, new NdjsonWriter(res, this.options.streamStallMs), release, format);
    }

    private async stream<Stream extends ReplyStream>(
        res: Response, stream: Stream, release: () => void, format: (stream: Stream) => StreamReplyFormat
    ): Promise<void> {
        try {
            const reply = format(stream);
            stream.open();
            reply.open?.();
            try {
                // Closed: its client left, or the server's stop ended it with its error event.
                const usage = await this.generate(res, reply, () => stream.closed, stream);
                if (usage == null)
                    return;
                reply.finish(usage);
                stream.close();
            } catch (error) {
                this.fail(res, stream, reply, error);
            }
        } finally {
            if (stream.dropped != null)
                this.options.logger.warn({event: "stream_dropped", reqId: res.locals.requestId, ...stream.dropped},
                    "a client that read nothing for the stall time was dropped; its generation stopped and its sequence was freed");
            release();
        }
    }

    /**
     * Runs the reply's choices one after another and records their usage. Nothing is returned for a
     * reply that will not be sent (a choice aborted, or `gone`): the tokens generated still count, as an abort.
     */
    private async generate(res: Response, reply: ReplyFormat, gone: () => boolean, stream?: ReplyStream): Promise<GenerationResult | undefined> {
        const results: GenerationResult[] = [];
        // One budget for all the choices of a reply sent whole.
        const replySizeLeft = {bytes: maxJsonReplyBytes};
        for (let index = 0; index < reply.choices; index++) {
            const choice = reply.startChoice(index);
            const keepAlive = stream?.comment == null ? {} : {keepAlive: (text: string) => stream.comment!(text)};
            // A stream waits for a slow reader; a reply sent whole is bounded instead (replySizeGuard.ts).
            const handlers = stream == null ? limitReplySize(choice.handlers, replySizeLeft) : {...choice.handlers, pace: () => stream.ready()};
            const result = await consumeGeneration(choice.events, {...keepAlive, ...handlers});
            if (result.finishReason === "abort" || gone()) {
                recordUsage(res, abandoned(usageOf(reply, [...results, result])));
                return undefined;
            }
            choice.end?.(result);
            results.push(result);
        }
        const usage = usageOf(reply, results);
        recordUsage(res, usage);
        return usage;
    }

    /** A generation that threw mid-stream: a bug is logged in full, the client gets the failure in its API's words. */
    private fail(res: Response, stream: ReplyStream, reply: StreamReplyFormat, error: unknown): void {
        const apiError = toApiError(error);
        if (apiError.status >= 500)
            this.options.logger.error({event: "stream_failed", reqId: res.locals.requestId, err: error}, "generation failed mid-stream");
        if (reply.fail == null)
            return stream.fail(apiError);
        recordError(res, apiError);
        reply.fail(apiError);
        stream.close();
    }
}

function usageOf(reply: ReplyFormat, results: readonly GenerationResult[]): GenerationResult {
    return reply.usage?.(results) ?? results[0]!;
}
