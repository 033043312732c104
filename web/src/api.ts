import {SseReader} from "./sse.js";
import type {Usage} from "./stats.js";
import type {RequestMessage} from "./conversation.js";

/** The page talks only to its own origin; the key (when the server wants one) is kept in this browser. */
const keyStorage = "chatserve.apiKey";

export function storedKey(): string | null {
    return localStorage.getItem(keyStorage);
}

export function storeKey(key: string | null): void {
    if (key == null)
        localStorage.removeItem(keyStorage);
    else
        localStorage.setItem(keyStorage, key);
}

/** A refused request, with the server's own message; `status` 401 means the key is missing or wrong. */
export class ApiError extends Error {
    constructor(message: string, readonly status: number) {
        super(message);
    }
}

function headers(json: boolean): HeadersInit {
    const key = storedKey();
    return {...(key != null ? {authorization: `Bearer ${key}`} : {}), ...(json ? {"content-type": "application/json"} : {})};
}

async function refused(response: Response): Promise<ApiError> {
    const text = await response.text();
    let message = `${response.status} ${response.statusText}`;
    try {
        const body = JSON.parse(text) as {error?: {message?: string} | string};
        message = typeof body.error === "string" ? body.error : body.error?.message ?? message;
    } catch {
        // Not JSON: keep the status line.
    }
    return new ApiError(message, response.status);
}

export async function getJson<T>(path: string): Promise<T> {
    const response = await fetch(path, {headers: headers(false)});
    if (!response.ok)
        throw await refused(response);
    return await response.json() as T;
}

export async function postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const response = await fetch(path, {method: "POST", headers: headers(true), body: JSON.stringify(body), signal});
    if (!response.ok)
        throw await refused(response);
    return await response.json() as T;
}

export type ModelEntry = {
    id: string,
    context_length: number | null,
    capabilities: string[],
    status: "available" | "loading" | "loaded" | "unavailable",
    loaded: boolean,
    loading: boolean,
    unloading: boolean,
    memory_bytes: number,
    active_requests: number,
    expires_at: number | null,
    size_bytes: number,
    architecture: string | null,
    error?: string,
    vision_error?: string,
    alias_for?: string
};

export async function listModels(): Promise<ModelEntry[]> {
    return (await getJson<{data: ModelEntry[]}>("/v1/models")).data;
}

export async function modelAction(id: string, action: "load" | "unload"): Promise<ModelEntry> {
    return await postJson<ModelEntry>(`/v1/models/${id.split("/").map(encodeURIComponent).join("/")}/${action}`, {});
}

/** What arrives while a reply streams. */
export type StreamEvents = {
    onContent(text: string): void,
    onReasoning(text: string): void,
    onUsage(usage: Usage): void
};

type Chunk = {
    choices?: {delta?: {content?: string | null, reasoning_content?: string | null}, finish_reason?: string | null}[],
    usage?: Usage | null,
    error?: {message?: string}
};

/** Streams one chat completion; resolves when it ends, rejects with the server's error or AbortError when stopped. */
export async function streamChat(body: {model: string, messages: RequestMessage[]} & Record<string, unknown>, events: StreamEvents, signal: AbortSignal): Promise<void> {
    const response = await fetch("/v1/chat/completions", {
        method: "POST",
        headers: headers(true),
        body: JSON.stringify({...body, stream: true, stream_options: {include_usage: true}}),
        signal
    });
    if (!response.ok || response.body == null)
        throw await refused(response);
    const reader = new SseReader();
    const decoder = new TextDecoder();
    const stream = response.body.getReader();
    for (;;) {
        const {done, value} = await stream.read();
        if (done)
            return;
        for (const payload of reader.push(decoder.decode(value, {stream: true}))) {
            if (payload === "[DONE]")
                return;
            const chunk = JSON.parse(payload) as Chunk;
            if (chunk.error != null)
                throw new ApiError(chunk.error.message ?? "The server ended the reply with an error.", 500);
            const delta = chunk.choices?.[0]?.delta;
            if (delta?.reasoning_content)
                events.onReasoning(delta.reasoning_content);
            if (delta?.content)
                events.onContent(delta.content);
            if (chunk.usage != null)
                events.onUsage(chunk.usage);
        }
    }
}
