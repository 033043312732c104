import {randomBytes} from "node:crypto";
import type {GenerationResult} from "../../engine/generationEvents.js";
import type {GenerationHandlers} from "../../http/consumeGeneration.js";
import type {NdjsonWriter} from "../../http/ndjsonWriter.js";
import type {GenerationEvents, JsonReplyFormat, StreamReplyFormat} from "../../http/replyFormat.js";
import {doneReason, ollamaMetrics, type RequestClock} from "./replyTimings.js";

/** A reply's generation as the Ollama routes hand it over: its events, its clock, and `chat` or `generate`'s shape. */
export type OllamaGeneration = {model: string, kind: "chat" | "generate", events: GenerationEvents, clock: RequestClock};

type ToolCall = {id: string, function: {index: number, name: string, arguments: unknown}};

/**
 * Ollama's replies. Chat puts text in `message.content` and thought in `message.thinking`; generate
 * puts them in `response` and `thinking`. Streamed, each piece is one NDJSON object with `done:
 * false`; the last has `done: true`, `done_reason` and the measured counts and durations. A tool
 * call is sent whole, its `arguments` an object, in a piece of its own once its arguments are
 * complete (as Ollama streams them: its clients read calls whole).
 */
export function ollamaStream(ndjson: NdjsonWriter, generation: OllamaGeneration): StreamReplyFormat {
    const calls = new ToolCalls();
    const piece = (fields: {content?: string, thinking?: string, tool_calls?: ToolCall[]}) => ndjson.send({
        ...head(generation), ...body(generation.kind, fields), done: false
    });
    return {
        choices: 1,
        startChoice: () => ({
            events: generation.events,
            handlers: {
                text: (text) => piece({content: text}),
                reasoning: (text) => piece({thinking: text}),
                toolCall: (index, name, id) => {
                    // A call's arguments are complete once the next call begins.
                    const done = calls.finished();
                    if (done.length > 0)
                        piece({tool_calls: done});
                    calls.begin(index, name, id);
                },
                toolArguments: (index, text) => calls.append(index, text)
            }
        }),
        finish: (result) => {
            const done = calls.finished();
            if (done.length > 0)
                piece({tool_calls: done});
            ndjson.send(last(generation, result, {content: ""}));
        }
    };
}

/** `stream: false`: one object holding the whole reply. */
export function ollamaBody(generation: OllamaGeneration): JsonReplyFormat {
    const calls = new ToolCalls();
    let content = "";
    let thinking = "";
    const handlers: GenerationHandlers = {
        text: (text) => {
            content += text;
        },
        reasoning: (text) => {
            thinking += text;
        },
        toolCall: (index, name, id) => calls.begin(index, name, id),
        toolArguments: (index, text) => calls.append(index, text)
    };
    return {
        choices: 1,
        startChoice: () => ({events: generation.events, handlers}),
        body: (result) => {
            const toolCalls = calls.finished();
            return last(generation, result, {
                content, ...(thinking !== "" ? {thinking} : {}), ...(toolCalls.length > 0 ? {tool_calls: toolCalls} : {})
            });
        }
    };
}

function head(generation: OllamaGeneration): {model: string, created_at: string} {
    return {model: generation.model, created_at: new Date().toISOString()};
}

function body(kind: OllamaGeneration["kind"], fields: {content?: string, thinking?: string, tool_calls?: ToolCall[]}): Record<string, unknown> {
    if (kind === "chat")
        return {message: {role: "assistant", content: fields.content ?? "", ...optional(fields)}};
    return {response: fields.content ?? "", ...(fields.thinking != null ? {thinking: fields.thinking} : {})};
}

function optional(fields: {thinking?: string, tool_calls?: ToolCall[]}): Record<string, unknown> {
    return {...(fields.thinking != null ? {thinking: fields.thinking} : {}), ...(fields.tool_calls != null ? {tool_calls: fields.tool_calls} : {})};
}

function last(generation: OllamaGeneration, result: GenerationResult, fields: {content: string, thinking?: string, tool_calls?: ToolCall[]}): Record<string, unknown> {
    return {...head(generation), ...body(generation.kind, fields), done: true, done_reason: doneReason(result), ...ollamaMetrics(result, generation.clock)};
}

/** The reply's tool calls as their pieces come. */
class ToolCalls {
    private readonly pending: Array<{index: number, name: string, text: string, id?: string}> = [];
    private sent = 0;

    public begin(index: number, name: string, id?: string): void {
        this.pending.push({index, name, text: "", ...(id == null ? {} : {id})});
    }

    public append(index: number, text: string): void {
        const call = this.pending.find((candidate) => candidate.index === index);
        if (call != null)
            call.text += text;
    }

    /** The calls begun and not yet handed out: ask when they are complete (the next call begins, or the reply ends). */
    public finished(): ToolCall[] {
        const done = this.pending.slice(this.sent);
        this.sent = this.pending.length;
        return done.map((call) => ({
            id: call.id ?? `call_${randomBytes(6).toString("hex")}`,
            function: {index: call.index, name: call.name, arguments: parseArguments(call.text)}
        }));
    }
}

/** The grammar makes the arguments a JSON object; text that is not one (a model without the grammar) is passed on as it came. */
function parseArguments(text: string): unknown {
    if (text.trim() === "")
        return {};
    try {
        return JSON.parse(text);
    } catch {
        return text;
    }
}
