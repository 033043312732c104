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
