import {randomBytes} from "node:crypto";
import {performance} from "node:perf_hooks";
import {encodePng, gradient} from "../test/fixtures/images.js";
import {readEvents} from "./sse.js";

/** Chat messages with image parts, as OpenAI's chat completions take them. */
export type ContentPart = {type: "text", text: string} | {type: "image_url", image_url: {url: string}};
export type VisionMessage = {role: "user" | "assistant", content: string | ContentPart[]};

/** One streamed reply with the arrival time of every content chunk (performance.now(), ms). */
export type TimedStream = {
    startedAt: number,
    chunkTimes: number[],
    firstContentAt: number | null,
    endedAt: number,
    content: string,
    finishReason: string | null,
    /** The client stopped reading (the stall phase ends its long text stream this way). */
    aborted: boolean,
    promptTokens: number,
    cachedTokens: number
};

type Chunk = {
    choices?: Array<{delta?: {content?: string | null}, finish_reason?: string | null}>,
    usage?: {prompt_tokens?: number, prompt_tokens_details?: {cached_tokens?: number}} | null,
    error?: {message?: string}
};

/**
 * A 640×480 PNG no server has seen: a gradient with random bytes on its first row, so that its
 * SHA-256 (the key both servers cache images by) is new every call and no request hits a cache.
 */
export function freshImage(): ContentPart {
    const rgb = gradient(640, 480, Math.floor(Math.random() * 256));
    rgb.set(randomBytes(640 * 3), 0);
    return {type: "image_url", image_url: {url: `data:image/png;base64,${encodePng(640, 480, rgb).toString("base64")}`}};
}

/**
 * POSTs a streamed, greedy chat completion and timestamps each content chunk as it arrives.
 * `onChunk` sees the running count; aborting `signal` ends the read and resolves with what came.
 */
export async function streamTimed(
    baseUrl: string, model: string, messages: VisionMessage[], maxTokens: number,
    {signal, onChunk}: {signal?: AbortSignal, onChunk?: (count: number) => void} = {}
): Promise<TimedStream> {
    const result: TimedStream = {
        startedAt: performance.now(), chunkTimes: [], firstContentAt: null, endedAt: 0, content: "",
        finishReason: null, aborted: false, promptTokens: Number.NaN, cachedTokens: 0
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
        if (text !== "") {
            result.firstContentAt ??= now;
            result.chunkTimes.push(now);
            result.content += text;
            onChunk?.(result.chunkTimes.length);
        }
        result.finishReason = choice?.finish_reason ?? result.finishReason;
        if (chunk.usage != null) {
            result.promptTokens = chunk.usage.prompt_tokens ?? Number.NaN;
            result.cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        }
    };
    try {
        const response = await fetch(`${baseUrl}/chat/completions`, {
            method: "POST",
            headers: {"Content-Type": "application/json", Accept: "text/event-stream"},
            body: JSON.stringify({
                model, messages, max_tokens: maxTokens, temperature: 0, stream: true, stream_options: {include_usage: true}
            }),
            signal
        });
        if (!response.ok || response.body == null)
            throw new Error(`HTTP ${response.status} from /chat/completions: ${await response.text()}`);
        await readEvents(response.body, onData);
    } catch (error) {
        if (signal?.aborted !== true)
            throw error;
        result.aborted = true;
    }
    result.endedAt = performance.now();
    return result;
}

/** Time to first token: the first content chunk. */
export function ttft(stream: TimedStream): number {
    return stream.firstContentAt == null ? Number.NaN : stream.firstContentAt - stream.startedAt;
}
