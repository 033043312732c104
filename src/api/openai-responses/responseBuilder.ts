import {randomBytes} from "node:crypto";
import type {GenerationResult} from "../../engine/generationEvents.js";
import type {FunctionCallItem, MessageItem, OutputItem, ReasoningItem, ResponseObject, ResponseUsage} from "./responsesResponse.js";
import type {ResponseTools} from "./responseTools.js";

/** Receives each streaming event as OpenAI names it (`response.output_text.delta`…), without its sequence number. */
export type ResponseEventSink = (type: string, payload: Record<string, unknown>) => void;

const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString("hex")}`;

/**
 * Assembles a response's output items from the engine's events, and announces each step the way the
 * Responses API streams it: an item is added, its part is added, deltas, the part and the item are
 * done. Codex waits for `response.output_item.done` on every item. The same builder, with a sink
 * that drops the events, assembles a non-streamed response, so both carry the same output.
 */
export class ResponseBuilder {
    public readonly output: OutputItem[] = [];
    /** The item being written, and the text or arguments it has so far. */
    private open: {item: OutputItem, text: string} | null = null;
    /** Engine call index → the output item it became. */
    private readonly calls = new Map<number, FunctionCallItem>();

    public constructor(
        public readonly snapshot: ResponseObject,
        private readonly tools: ResponseTools,
        private readonly emit: ResponseEventSink
    ) {}

    public start(): void {
        this.emit("response.created", {response: this.snapshot});
        this.emit("response.in_progress", {response: this.snapshot});
    }

    public text(delta: string): void {
        const item = this.ensureOpen("message") as MessageItem;
        this.open!.text += delta;
        this.emit("response.output_text.delta", {item_id: item.id, output_index: this.indexOf(item), content_index: 0, delta, logprobs: []});
    }

    public reasoning(delta: string): void {
        const item = this.ensureOpen("reasoning") as ReasoningItem;
        this.open!.text += delta;
        this.emit("response.reasoning_summary_text.delta", {item_id: item.id, output_index: this.indexOf(item), summary_index: 0, delta});
    }

    /** `callId`: the model's own name for the call, where its syntax gives one (Kimi K2's). */
    public toolCall(index: number, flatName: string, callId?: string): void {
        this.closeOpen("completed");
        const {name, namespace} = this.tools.clientName(flatName);
        const item: FunctionCallItem = {
            id: newId("fc"), type: "function_call", status: "in_progress", call_id: callId ?? newId("call"), name, ...(namespace != null ? {namespace} : {}), arguments: ""
        };
        this.calls.set(index, item);
        this.begin(item);
    }

    public toolArguments(index: number, delta: string): void {
        const item = this.calls.get(index)!;
        this.open!.text += delta;
        this.emit("response.function_call_arguments.delta", {item_id: item.id, output_index: this.indexOf(item), delta});
    }

    /** The generation ended: the last item closes, and the response takes its status and usage. */
    public finish(result: GenerationResult): ResponseObject {
        const cut = result.finishReason === "length";
        this.closeOpen(cut ? "incomplete" : "completed");
        Object.assign(this.snapshot, {
            status: cut ? "incomplete" : "completed",
            incomplete_details: cut ? {reason: "max_output_tokens"} : null,
            output: this.output,
            usage: toResponseUsage(result)
        });
        return this.snapshot;
    }

    private ensureOpen(type: "message" | "reasoning"): OutputItem {
        if (this.open?.item.type === type)
            return this.open.item;
        this.closeOpen("completed");
        const item: OutputItem = type === "message"
            ? {id: newId("msg"), type, status: "in_progress", role: "assistant", content: []}
            : {id: newId("rs"), type, summary: []};
        this.begin(item);
        return item;
    }

    private begin(item: OutputItem): void {
        this.output.push(item);
        this.open = {item, text: ""};
        const at = {item_id: item.id, output_index: this.indexOf(item)};
        this.emit("response.output_item.added", {output_index: at.output_index, item: structuredClone(item)});
        if (item.type === "message")
            this.emit("response.content_part.added", {...at, content_index: 0, part: outputText("")});
        else if (item.type === "reasoning")
            this.emit("response.reasoning_summary_part.added", {...at, summary_index: 0, part: {type: "summary_text", text: ""}});
    }

    private closeOpen(status: "completed" | "incomplete"): void {
        if (this.open == null)
            return;
        const {item, text} = this.open;
        this.open = null;
        const at = {item_id: item.id, output_index: this.indexOf(item)};
        switch (item.type) {
            case "message":
                item.content = [outputText(text)];
                item.status = status;
                this.emit("response.output_text.done", {...at, content_index: 0, text, logprobs: []});
                this.emit("response.content_part.done", {...at, content_index: 0, part: outputText(text)});
                break;
            case "reasoning":
                item.summary = [{type: "summary_text", text}];
                this.emit("response.reasoning_summary_text.done", {...at, summary_index: 0, text});
                this.emit("response.reasoning_summary_part.done", {...at, summary_index: 0, part: {type: "summary_text", text}});
                break;
            case "function_call":
                item.arguments = text;
                item.status = status;
                this.emit("response.function_call_arguments.done", {...at, name: item.name, arguments: text});
                break;
        }
        this.emit("response.output_item.done", {output_index: at.output_index, item});
    }

    private indexOf(item: OutputItem): number {
        return this.output.lastIndexOf(item);
    }
}

function outputText(text: string): MessageItem["content"][number] {
    return {type: "output_text", text, annotations: [], logprobs: []};
}

export function toResponseUsage(result: Pick<GenerationResult, "promptTokens" | "cachedTokens" | "completionTokens" | "reasoningTokens">): ResponseUsage {
    return {
        input_tokens: result.promptTokens,
        input_tokens_details: {cached_tokens: result.cachedTokens},
        output_tokens: result.completionTokens,
        output_tokens_details: {reasoning_tokens: result.reasoningTokens ?? 0},
        total_tokens: result.promptTokens + result.completionTokens
    };
}
