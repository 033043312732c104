import type {GenerationHandlers} from "../../http/consumeGeneration.js";
import type {GenerationEvents, JsonReplyFormat, StreamReplyFormat} from "../../http/replyFormat.js";
import type {SseWriter} from "../../http/sseWriter.js";
import {AnthropicMessageBuilder, type MessageEventSink} from "./anthropicMessageBuilder.js";

/** What a message is written from: the generation's events, and its prompt's size (`message_start` reports it before generating). */
export type MessageSource = {events: GenerationEvents, promptTokens: number};

/** A non-streamed message: the same builder as a stream's, with a sink that drops its events. */
export function messageBody(model: string, source: MessageSource): JsonReplyFormat {
    const builder = new AnthropicMessageBuilder(model, () => undefined);
    return {
        choices: 1,
        startChoice: () => ({events: source.events, handlers: handlersOf(builder)}),
        body: (usage) => builder.finish(usage, usage.stopSequence ?? null)
    };
}

/**
 * Anthropic's event sequence: `message_start`, a `ping`, per block `content_block_start`, its
 * deltas and `content_block_stop`, then `message_delta` and `message_stop`. A long prompt's
 * progress is sent as `ping` events; a failure after the start is an `error` event (its envelope,
 * anthropicErrors.ts).
 */
export function messageStream(sse: SseWriter, model: string, source: MessageSource): StreamReplyFormat {
    const emit: MessageEventSink = (type, payload) => sse.sendEvent(type, JSON.stringify({type, ...payload}));
    const builder = new AnthropicMessageBuilder(model, emit);
    return {
        choices: 1,
        open: () => {
            builder.start(source.promptTokens);
            emit("ping", {});
        },
        startChoice: () => ({events: source.events, handlers: {...handlersOf(builder), keepAlive: () => emit("ping", {})}}),
        finish: (usage) => {
            builder.finish(usage, usage.stopSequence ?? null);
        }
    };
}

function handlersOf(builder: AnthropicMessageBuilder): GenerationHandlers {
    return {
        text: (text) => builder.text(text),
        reasoning: (text) => builder.thinking(text),
        toolCall: (_index, name, id) => builder.toolUse(name, id),
        toolArguments: (_index, text) => builder.toolInput(text)
    };
}
