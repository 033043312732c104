import {createHash, randomBytes} from "node:crypto";
import type {GenerationResult} from "../../engine/generationEvents.js";

type TextBlock = {type: "text", text: string};
type ThinkingBlock = {type: "thinking", thinking: string, signature: string};
type ToolUseBlock = {type: "tool_use", id: string, name: string, input: unknown};
export type ReplyBlock = TextBlock | ThinkingBlock | ToolUseBlock;

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use";

export type MessageUsage = {input_tokens: number, output_tokens: number, cache_creation_input_tokens: number, cache_read_input_tokens: number};

/** Anthropic's `message` object. */
export type MessageObject = {
    id: string, type: "message", role: "assistant", model: string, content: ReplyBlock[],
    stop_reason: StopReason | null, stop_sequence: string | null, usage: MessageUsage
};

/** Receives each streaming event as Anthropic names it (`content_block_delta`…). */
export type MessageEventSink = (type: string, payload: Record<string, unknown>) => void;

/**
 * Assembles a message's content blocks from the engine's events, and announces each step the way
 * Anthropic streams it: a block starts, its deltas, it stops. The same builder with a sink that
 * drops the events assembles a non-streamed message, so both carry the same content.
 */
export class AnthropicMessageBuilder {
    public readonly message: MessageObject;
    /** The block being written, its index, and its JSON arguments so far (tool_use). */
    private open: {block: ReplyBlock, index: number, json: string} | null = null;

    public constructor(model: string, private readonly emit: MessageEventSink) {
        this.message = {
            id: `msg_${randomBytes(12).toString("hex")}`, type: "message", role: "assistant", model, content: [],
            stop_reason: null, stop_sequence: null, usage: {input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0}
        };
    }

    /** `message_start`, with the prompt's size as far as it is known before generating. */
    public start(promptTokens: number): void {
        this.message.usage.input_tokens = promptTokens;
        this.emit("message_start", {message: this.message});
    }

    public text(delta: string): void {
        const {block, index} = this.ensureOpen("text");
        (block as TextBlock).text += delta;
        this.emit("content_block_delta", {index, delta: {type: "text_delta", text: delta}});
    }

    public thinking(delta: string): void {
        const {block, index} = this.ensureOpen("thinking");
        (block as ThinkingBlock).thinking += delta;
        this.emit("content_block_delta", {index, delta: {type: "thinking_delta", thinking: delta}});
    }

    /** `id`: the model's own name for the call, where its syntax gives one (Kimi K2's). */
    public toolUse(name: string, id?: string): void {
        this.begin({type: "tool_use", id: id ?? `toolu_${randomBytes(12).toString("hex")}`, name, input: {}});
    }

    public toolInput(delta: string): void {
        this.open!.json += delta;
        this.emit("content_block_delta", {index: this.open!.index, delta: {type: "input_json_delta", partial_json: delta}});
    }

    /** The generation ended: the last block closes; the message takes its stop reason and usage. */
    public finish(result: GenerationResult, stopSequence: string | null): MessageObject {
        this.closeOpen();
        const reason: StopReason = result.finishReason === "length" ? "max_tokens"
            : result.finishReason === "toolCalls" ? "tool_use"
                : stopSequence != null ? "stop_sequence" : "end_turn";
        // Anthropic counts the reused prefix apart: input_tokens + cache_read_input_tokens is the whole prompt.
        const usage: MessageUsage = {
            input_tokens: result.promptTokens - result.cachedTokens, output_tokens: result.completionTokens,
            cache_creation_input_tokens: 0, cache_read_input_tokens: result.cachedTokens
        };
        Object.assign(this.message, {stop_reason: reason, stop_sequence: reason === "stop_sequence" ? stopSequence : null, usage});
        this.emit("message_delta", {delta: {stop_reason: reason, stop_sequence: this.message.stop_sequence}, usage});
        this.emit("message_stop", {});
        return this.message;
    }

    private ensureOpen(type: "text" | "thinking"): {block: ReplyBlock, index: number} {
        if (this.open?.block.type === type)
            return this.open;
        this.begin(type === "text" ? {type, text: ""} : {type, thinking: "", signature: ""});
        return this.open!;
    }

    private begin(block: ReplyBlock): void {
        this.closeOpen();
        this.message.content.push(block);
        this.open = {block, index: this.message.content.length - 1, json: ""};
        this.emit("content_block_start", {index: this.open.index, content_block: block});
    }

    private closeOpen(): void {
        if (this.open == null)
            return;
        const {block, index, json} = this.open;
        this.open = null;
        if (block.type === "thinking") {
            // Clients send thinking blocks back with their signature; chatserve only needs it to be there.
            block.signature = createHash("sha256").update(block.thinking).digest("base64");
            this.emit("content_block_delta", {index, delta: {type: "signature_delta", signature: block.signature}});
        }
        if (block.type === "tool_use")
            block.input = parseInput(json);
        this.emit("content_block_stop", {index});
    }
}

/** A call's arguments as the object Anthropic's `input` is; a call cut short by max_tokens keeps what parses (nothing). */
function parseInput(json: string): unknown {
    try {
        const value: unknown = JSON.parse(json);
        return value != null && typeof value === "object" && !Array.isArray(value) ? value : {};
    } catch {
        return {};
    }
}
