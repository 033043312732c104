import type {GenerationHandlers} from "../../http/consumeGeneration.js";
import type {GenerationEvents, JsonReplyFormat, StreamReplyFormat} from "../../http/replyFormat.js";
import type {SseWriter} from "../../http/sseWriter.js";
import {ResponseBuilder, type ResponseEventSink} from "./responseBuilder.js";
import type {ResponseObject} from "./responsesResponse.js";
import type {ResponseTools} from "./responseTools.js";

/** What a response is written from: the snapshot it fills in, the tools its calls name, and the generation. */
export type ResponseSource = {snapshot: ResponseObject, tools: ResponseTools, generation: {events: GenerationEvents}};

/** Called with the finished response (not a failed or abandoned one): the route keeps it when the request asked to store it. */
export type KeepResponse = (response: ResponseObject) => void;

/** A non-streamed response: the same builder as a stream's, with a sink that drops its events. */
export function responseBody(source: ResponseSource, keep: KeepResponse): JsonReplyFormat {
    const builder = new ResponseBuilder(source.snapshot, source.tools, () => undefined);
    return {
        choices: 1,
        startChoice: () => ({events: source.generation.events, handlers: handlersOf(builder)}),
        body: (usage) => {
            const response = builder.finish(usage);
            keep(response);
            return response;
        }
    };
}

/**
 * `event:` + `data:` per event, each with its `sequence_number`, ending with `response.completed`
 * (or `response.incomplete`); a failure after the start is `response.failed` with the error.
 */
export function responseStream(sse: SseWriter, source: ResponseSource, keep: KeepResponse): StreamReplyFormat {
    let sequence = 0;
    const emit: ResponseEventSink = (type, payload) => sse.sendEvent(type, JSON.stringify({type, sequence_number: sequence++, ...payload}));
    const builder = new ResponseBuilder(source.snapshot, source.tools, emit);
    return {
        choices: 1,
        open: () => builder.start(),
        startChoice: () => ({events: source.generation.events, handlers: handlersOf(builder)}),
        finish: (usage) => {
            const response = builder.finish(usage);
            keep(response);
            emit(response.status === "incomplete" ? "response.incomplete" : "response.completed", {response});
        },
        fail: (error) => {
            Object.assign(source.snapshot, {status: "failed", error: {code: error.code ?? error.type, message: error.message}});
            emit("response.failed", {response: source.snapshot});
        }
    };
}

function handlersOf(builder: ResponseBuilder): GenerationHandlers {
    return {
        text: (text) => builder.text(text),
        reasoning: (text) => builder.reasoning(text),
        toolCall: (index, name, id) => builder.toolCall(index, name, id),
        toolArguments: (index, text) => builder.toolArguments(index, text)
    };
}
