import {expect} from "vitest";

/**
 * Splits a raw SSE body into its `data:` payloads, checking the framing as it goes:
 * every event is one `data: <payload>` line followed by a blank line; `: …` comments are skipped.
 */
export function dataEvents(raw: string): string[] {
    expect(raw.endsWith("\n\n")).toBe(true);
    const events = raw.slice(0, -2).split("\n\n").filter((event) => !event.startsWith(":"));
    for (const event of events)
        expect(event).toMatch(/^data: [^\n]+$/);
    return events.map((event) => event.slice("data: ".length));
}

export type NamedEvent = {event: string, data: Record<string, any>};

/**
 * Splits a raw SSE body of named events (the Responses and Messages APIs) into `event: <type>` +
 * `data: <json>` blocks, checking that each event's `type` repeats its name; comments are skipped.
 */
export function namedEvents(raw: string): NamedEvent[] {
    return raw.trim().split("\n\n").filter((block) => !block.startsWith(":")).map((block) => {
        const match = /^event: ([^\n]+)\ndata: ([^\n]+)$/.exec(block);
        expect(match, block).not.toBeNull();
        const data = JSON.parse(match![2]!);
        expect(data.type).toBe(match![1]);
        return {event: match![1]!, data};
    });
}
