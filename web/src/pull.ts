import {storedKey} from "./api.js";

export type PullProgress = {status: string, total?: number, completed?: number, error?: string};

/** `POST /api/pull` (Ollama's NDJSON progress), one line per event; rejects with the server's refusal. */
export async function pullModel(name: string, onProgress: (progress: PullProgress) => void, signal: AbortSignal): Promise<void> {
    const key = storedKey();
    const response = await fetch("/api/pull", {
        method: "POST",
        headers: {"content-type": "application/json", ...(key != null ? {authorization: `Bearer ${key}`} : {})},
        body: JSON.stringify({model: name, stream: true}),
        signal
    });
    if (!response.ok || response.body == null) {
        const body = await response.json().catch(() => ({})) as {error?: string};
        throw new Error(body.error ?? `${response.status} ${response.statusText}`);
    }
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    let pending = "";
    for (;;) {
        const {done, value} = await reader.read();
        pending += done ? "" : decoder.decode(value, {stream: true});
        const lines = pending.split("\n");
        pending = done ? "" : lines.pop() ?? "";
        for (const line of lines.filter((text) => text.trim() !== "")) {
            const progress = JSON.parse(line) as PullProgress;
            if (progress.error != null)
                throw new Error(progress.error);
            onProgress(progress);
        }
        if (done)
            return;
    }
}
