/**
 * Server-sent events as /v1/chat/completions streams them, read from text that arrives in pieces
 * of any size: a piece can end mid-line, so the unfinished tail waits for the next piece. Pure, so
 * the unit tests feed it arbitrary splits.
 */
export class SseReader {
    #pending = "";

    /** The `data:` payloads completed by this piece ("[DONE]" included), in order. */
    push(text: string): string[] {
        this.#pending += text;
        const events = this.#pending.split(/\r?\n\r?\n/);
        this.#pending = events.pop() ?? "";
        const payloads: string[] = [];
        for (const event of events) {
            const data = event.split(/\r?\n/)
                .filter((line) => line.startsWith("data:"))
                .map((line) => line.slice(5).replace(/^ /, ""));
            if (data.length > 0)
                payloads.push(data.join("\n"));
        }
        return payloads;
    }
}
