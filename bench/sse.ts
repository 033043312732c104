import {performance} from "node:perf_hooks";

/** The request body fields the benchmark sends (OpenAI chat completions, streamed). */
export type ChatMessage =
    | {role: "system" | "user", content: string}
    | {role: "assistant", content: string, tool_calls?: ToolCallMessage[]}
    | {role: "tool", content: string, tool_call_id: string};

/** A tool call as the assistant message of the next turn carries it back. */
export type ToolCallMessage = {id: string, type: "function", function: {name: string, arguments: string}};

export type Usage = {
    prompt_tokens: number,
    completion_tokens: number,
    total_tokens: number,
    prompt_tokens_details?: {cached_tokens?: number}
};

/** One streamed reply with client-side timestamps (performance.now(), ms). */
export type StreamResult = {
    startedAt: number,
    /** First chunk with non-empty delta.content or a tool call's delta (the role chunk with "" does not count). */
    firstContentAt: number | null,
    lastContentAt: number | null,
    /** The chunk carrying finish_reason. */
    finishedAt: number | null,
    endedAt: number,
    contentChunks: number,
    content: string,
    /** Tool calls streamed, assembled (their chunks count as content for the timings). */
    toolCalls: ToolCallMessage[],
    finishReason: string | null,
    usage: Usage | null
};

type ToolCallDelta = {index?: number, id?: string, function?: {name?: string, arguments?: string}};

type Chunk = {
    choices?: Array<{delta?: {content?: string | null, tool_calls?: ToolCallDelta[] | null}, finish_reason?: string | null}>,
    usage?: Usage | null,
    error?: {message?: string}
};

/**
 * POSTs a streamed chat completion with plain fetch and reads the server-sent events by hand:
 * no SDK, so the client adds as little work as possible to what is measured. `extra`: more body
 * fields (`tools`, `tool_choice`). `apiKey`: sent as the bearer token, where the server has keys.
 */
export async function streamChat(baseUrl: string, model: string, messages: ChatMessage[], maxTokens: number, extra: object = {}, apiKey?: string): Promise<StreamResult> {
    const startedAt = performance.now();
    const response = await fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: {"Content-Type": "application/json", Accept: "text/event-stream", ...(apiKey == null ? {} : {Authorization: `Bearer ${apiKey}`})},
        body: JSON.stringify({
            model,
            messages,
            max_tokens: maxTokens,
            temperature: 0,
            stream: true,
            stream_options: {include_usage: true},
            ...extra
        })
    });
    if (!response.ok || response.body == null)
        throw new Error(`HTTP ${response.status} from /chat/completions: ${await response.text()}`);

    const result: StreamResult = {
        startedAt, firstContentAt: null, lastContentAt: null, finishedAt: null, endedAt: startedAt,
        contentChunks: 0, content: "", toolCalls: [], finishReason: null, usage: null
    };
    const onData = (data: string) => {
        if (data === "[DONE]")
            return;
        const now = performance.now();
        const chunk = JSON.parse(data) as Chunk;
        if (chunk.error != null)
            throw new Error(`stream failed: ${chunk.error.message ?? data}`);
        const choice = chunk.choices?.[0];
        const text = choice?.delta?.content ?? "";
        const calls = choice?.delta?.tool_calls ?? [];
        if (text !== "" || calls.length > 0) {
            result.firstContentAt ??= now;
            result.lastContentAt = now;
            result.contentChunks++;
            result.content += text;
        }
        for (const call of calls) {
            const index = call.index ?? result.toolCalls.length;
            const assembled = result.toolCalls[index] ??= {id: call.id ?? `call_${index}`, type: "function", function: {name: "", arguments: ""}};
            assembled.function.name += call.function?.name ?? "";
            assembled.function.arguments += call.function?.arguments ?? "";
        }
        if (choice?.finish_reason != null) {
            result.finishReason = choice.finish_reason;
            result.finishedAt = now;
        }
        if (chunk.usage != null)
            result.usage = chunk.usage;
    };

    await readEvents(response.body, onData);
    result.endedAt = performance.now();
    return result;
}

/** Reads a server-sent event stream to its end, handing each event's data to `onData`. */
export async function readEvents(body: AsyncIterable<Uint8Array>, onData: (data: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const bytes of body) {
        buffer += decoder.decode(bytes, {stream: true});
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
            parseEvent(buffer.slice(0, end), onData);
            buffer = buffer.slice(end + 2);
        }
    }
    parseEvent(buffer + decoder.decode(), onData);
}

/** One SSE event: `data:` lines are joined; comment lines (`: processing prompt …`) are skipped. */
function parseEvent(event: string, onData: (data: string) => void): void {
    const data = event.split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
    if (data.length > 0)
        onData(data.join("\n"));
}

/** Time to first token: the first content chunk, or the finish chunk for a reply with no text. */
export function ttftMs(result: StreamResult): number {
    const first = result.firstContentAt ?? result.finishedAt;
    return first == null ? Number.NaN : first - result.startedAt;
}

/** Decode speed: completion tokens after the first, over the time from first to last content chunk. */
export function decodeTokPerS(result: StreamResult): number {
    const tokens = result.usage?.completion_tokens ?? 0;
    if (result.firstContentAt == null || result.lastContentAt == null || tokens < 2)
        return Number.NaN;
    const spanMs = result.lastContentAt - result.firstContentAt;
    return spanMs > 0 ? (tokens - 1) / (spanMs / 1000) : Number.NaN;
}
