// A streamed reply, checked on the raw bytes: the SSE framing OpenAI clients parse.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {dataEvents} from "../../support/sse.js";
import {chatRequest, createTestApp} from "../../support/testApp.js";

type Chunk = {
    id: string, object: string, created: number, model: string,
    choices: Array<{index: number, delta: {role?: string, content?: string}, finish_reason: string | null}>,
    usage?: {prompt_tokens: number, completion_tokens: number, total_tokens: number} | null
};

async function stream(body: Record<string, unknown>) {
    const t = createTestApp();
    const res = await request(t.app).post("/v1/chat/completions").send(body).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(t.model.activeLeases).toBe(0);
    return dataEvents(res.text);
}

describe("POST /v1/chat/completions (streamed)", () => {
    it("frames every chunk as `data: <json>` and ends with [DONE]", async () => {
        const events = await stream(chatRequest({stream: true}));
        expect(events.at(-1)).toBe("[DONE]");
        const chunks = events.slice(0, -1).map((event) => JSON.parse(event) as Chunk);

        const [first] = chunks;
        expect(first!.id).toMatch(/^chatcmpl-/);
        for (const chunk of chunks) {
            expect(chunk).toMatchObject({id: first!.id, created: first!.created, object: "chat.completion.chunk", model: "tiny-chat"});
            expect(chunk).not.toHaveProperty("usage");
        }
        expect(first!.choices[0]!.delta.role).toBe("assistant");
        expect(chunks.map((chunk) => chunk.choices[0]!.delta.content ?? "").join("")).toBe("Hello there!");
        expect(chunks.slice(0, -1).every((chunk) => chunk.choices[0]!.finish_reason === null)).toBe(true);

        const last = chunks.at(-1)!;
        expect(last.choices[0]).toMatchObject({index: 0, delta: {}, finish_reason: "stop"});
    });

    it("reports finish_reason length when max_tokens cuts the reply", async () => {
        const events = await stream(chatRequest({stream: true, max_tokens: 1}));
        const chunks = events.slice(0, -1).map((event) => JSON.parse(event) as Chunk);
        expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("length");
        expect(chunks.map((chunk) => chunk.choices[0]!.delta.content ?? "").join("")).toBe("Hello");
    });

    it("with include_usage: usage null on every chunk, then a usage chunk without choices", async () => {
        const events = await stream(chatRequest({stream: true, stream_options: {include_usage: true}}));
        expect(events.at(-1)).toBe("[DONE]");
        const chunks = events.slice(0, -1).map((event) => JSON.parse(event) as Chunk);
        const usageChunk = chunks.at(-1)!;
        expect(usageChunk.choices).toEqual([]);
        expect(usageChunk.usage).toMatchObject({prompt_tokens: 2, completion_tokens: 3, total_tokens: 5});
        expect(usageChunk.id).toBe(chunks[0]!.id);

        const choiceChunks = chunks.slice(0, -1);
        for (const chunk of choiceChunks)
            expect(chunk.usage).toBeNull();
        expect(choiceChunks.at(-1)!.choices[0]!.finish_reason).toBe("stop");
    });

    it("keeps the connection alive with SSE comments while the prompt is processed", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["Hi"], progress: true};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({stream: true})).buffer(true);
        expect(res.text).toMatch(/(^|\n\n): [^\n]*\n\n/);
        const events = dataEvents(res.text);
        expect(events.at(-1)).toBe("[DONE]");
    });
});
