import type {GenerationEvent, GenerationResult} from "../engine/generationEvents.js";
import type {ApiError} from "../errors.js";
import type {GenerationHandlers} from "./consumeGeneration.js";

/** A generation's events, ending with its result. */
export type GenerationEvents = AsyncGenerator<GenerationEvent, GenerationResult>;

/** One choice of a reply: the generation that writes it, and what each of its events becomes. */
export type ChoiceFormat = {
    events: GenerationEvents,
    handlers: GenerationHandlers,
    /** The choice ended, not aborted: a stream's closing chunk for it, a body's finished choice. */
    end?(result: GenerationResult): void
};

/**
 * What one API makes of a generation, as the reply writer (replyWriter.ts) drives it: each
 * choice's events in turn, then the end. Most replies are one choice; chat's `n` and legacy
 * completions' prompt lists are several, generated one after another on one sequence.
 */
export type ReplyFormat = {
    choices: number,
    /**
     * Starts choice `index`, once the one before it has ended: writes what opens it (chat's role
     * chunk, completions' echo) and hands back its events.
     */
    startChoice(index: number): ChoiceFormat,
    /**
     * What the choices that ran count, for the log line, /metrics and the reply's usage: how this
     * API counts a prompt that several choices share. Needed with several; one choice counts its result.
     */
    usage?(results: readonly GenerationResult[]): GenerationResult
};

/** A reply sent whole once every choice has ended. */
export type JsonReplyFormat = ReplyFormat & {
    body(usage: GenerationResult): unknown
};

/** A reply streamed as its events come. */
export type StreamReplyFormat = ReplyFormat & {
    /** Before the first choice: Responses' `response.created`, Anthropic's `message_start`. */
    open?(): void,
    /** After the last choice: the closing events (a usage chunk, `[DONE]`, `message_stop` …). */
    finish(usage: GenerationResult): void,
    /**
     * A failure after the stream began, where the API has an event of its own for it (Responses'
     * `response.failed`); without one, the request's error envelope words it (errorEnvelope.ts).
     */
    fail?(error: ApiError): void
};
