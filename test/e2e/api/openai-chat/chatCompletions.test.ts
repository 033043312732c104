import {afterAll, beforeAll, describe, expect, it} from "vitest";
import OpenAI from "openai";
import {STRICT_TEMPLATE} from "../../../fixtures/gguf/chatTemplates.js";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

/**
 * The chat-completions contract end to end: a real server, a real GGUF model (built by the tests,
 * so this runs on a fresh clone) through node-llama-cpp, the official `openai` client.
 */
describe("chat completions with the official client on a tiny GGUF model", () => {
    let server: TestServer;
    let client: OpenAI;
    const model = "tiny-chat";
    const messages = [{role: "system" as const, content: "You are terse."}, {role: "user" as const, content: "Tell me about the cat."}];

    beforeAll(async () => {
        server = await startTestServer({
            [model]: await buildTinyChatModel(),
            "strict-template": await buildTinyChatModel(undefined, {template: {name: "strict", source: STRICT_TEMPLATE}})
        });
        client = server.client();
    });
    afterAll(async () => server?.stop());

    it("answers a chat.completion with exact usage", async () => {
        const reply = await client.chat.completions.create({model, messages, max_tokens: 12, temperature: 0});
        expect(reply.object).toBe("chat.completion");
        expect(reply.id).toMatch(/^chatcmpl-/);
        expect(Number.isInteger(reply.created)).toBe(true);
        expect(Math.abs(reply.created - Date.now() / 1000)).toBeLessThan(60);
        expect(reply.model).toBe(model);
        expect(reply.choices).toHaveLength(1);
        expect(reply.choices[0]!.index).toBe(0);
        expect(reply.choices[0]!.message.role).toBe("assistant");
        expect(typeof reply.choices[0]!.message.content).toBe("string");
        expect(["stop", "length"]).toContain(reply.choices[0]!.finish_reason);
        const usage = reply.usage!;
        expect(usage.prompt_tokens).toBeGreaterThan(10);
        expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
        if (reply.choices[0]!.finish_reason === "length")
            expect(usage.completion_tokens).toBe(12);
    });

    it("gives a max_tokens larger than the room left only that room, ending with finish_reason length (agents send 8,000-32,000)", async () => {
        const long = [{role: "user" as const, content: "the cat sat on the mat ".repeat(160)}];
        const counted = await client.chat.completions.create({model, messages: long, max_tokens: 1, temperature: 0});
        const room = 1024 - counted.usage!.prompt_tokens;
        expect(room).toBeGreaterThan(0);
        expect(room).toBeLessThan(100);
        for (const stream of [false, true]) {
            const reply = await client.chat.completions.create({model, messages: long, max_tokens: 32_000, temperature: 0, stream, stream_options: stream ? {include_usage: true} : undefined} as never) as unknown;
            const {finish, usage} = await finishAndUsage(reply);
            expect(finish).toBe("length");
            expect(usage.completion_tokens).toBe(room);
        }
    });

    it("is deterministic at temperature 0, and the stream concatenates to the same content and usage", async () => {
        const request = {model, messages, max_tokens: 24, temperature: 0};
        const first = await client.chat.completions.create(request);
        const second = await client.chat.completions.create(request);
        expect(second.choices[0]!.message.content).toBe(first.choices[0]!.message.content);

        const stream = await client.chat.completions.create({...request, stream: true, stream_options: {include_usage: true}});
        const chunks = [];
        for await (const chunk of stream)
            chunks.push(chunk);

        const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
        expect(content).toBe(first.choices[0]!.message.content);
        expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
        expect(new Set(chunks.map((chunk) => chunk.created)).size).toBe(1);
        expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");

        const usageChunk = chunks.at(-1)!;
        expect(usageChunk.choices).toEqual([]);
        expect(usageChunk.usage).toMatchObject({
            prompt_tokens: first.usage!.prompt_tokens,
            completion_tokens: first.usage!.completion_tokens,
            total_tokens: first.usage!.total_tokens
        });
        const finishChunk = chunks.at(-2)!;
        expect(finishChunk.choices[0]!.finish_reason).toBe(first.choices[0]!.finish_reason);
        expect(finishChunk.choices[0]!.delta).toEqual({});
    });

    it("stops at max_tokens with finish_reason length and completion_tokens equal to max_tokens", async () => {
        const reply = await client.chat.completions.create({model, messages, max_completion_tokens: 5, temperature: 0});
        // A random-weight model might end on its own first; the tiny model's greedy reply is longer than 5.
        expect(reply.choices[0]!.finish_reason).toBe("length");
        expect(reply.usage!.completion_tokens).toBe(5);
    });

    it("applies a stop sequence that spans tokens without leaking any of it", async () => {
        const full = (await client.chat.completions.create({model, messages, max_tokens: 30, temperature: 0})).choices[0]!.message.content!;
        expect(full.length).toBeGreaterThan(8);
        const start = Math.floor(full.length / 2);
        const stop = full.slice(start, start + 4);
        const expected = full.slice(0, full.indexOf(stop));

        const reply = await client.chat.completions.create({model, messages, max_tokens: 30, temperature: 0, stop: ["\u0000never", stop]});
        expect(reply.choices[0]!.message.content).toBe(expected);
        expect(reply.choices[0]!.finish_reason).toBe("stop");

        const stream = await client.chat.completions.create({model, messages, max_tokens: 30, temperature: 0, stop, stream: true});
        let streamed = "";
        for await (const chunk of stream)
            streamed += chunk.choices[0]?.delta.content ?? "";
        expect(streamed).toBe(expected);
    });

    it("rejects a prompt that cannot fit with context_length_exceeded before streaming", async () => {
        const long = "the cat ".repeat(600);
        const error = await client.chat.completions.create({model, messages: [{role: "user", content: long}], stream: true})
            .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("context_length_exceeded");
    });

    it("refuses megabytes of message as context_length_exceeded without stopping a running stream", async () => {
        const stream = client.chat.completions.create({model, messages, max_tokens: 40, temperature: 0, stream: true});
        const huge = "the cat sat on the mat ".repeat(200_000);
        const error = await client.chat.completions.create({model, messages: [{role: "user", content: huge}]}).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("context_length_exceeded");
        // Counted slice by slice, stopping past the limit: the message says "more than", not the exact count.
        expect((error as Error).message).toMatch(/resulted in more than \d+ tokens/);

        let finish: string | null = null;
        for await (const chunk of await stream)
            finish = chunk.choices[0]?.finish_reason ?? finish;
        expect(finish).not.toBeNull();
    });

    it("answers 400 with the template's reason when the chat template refuses the messages", async () => {
        const opensWithAssistant = [{role: "assistant" as const, content: "Hello."}, {role: "user" as const, content: "Hi."}];
        const error = await client.chat.completions.create({model: "strict-template", messages: opensWithAssistant, max_tokens: 4, stream: true})
            .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error).toMatchObject({code: "chat_template_error", param: "messages"});
        expect((error as Error).message).toMatch(/roles must alternate/);

        const reply = await client.chat.completions.create({model: "strict-template", messages: opensWithAssistant.slice(1), max_tokens: 4});
        expect(reply.usage!.completion_tokens).toBeGreaterThan(0);
    });

    it("answers 404 model_not_found for an unknown model", async () => {
        const error = await client.chat.completions.create({model: "no-such-model", messages}).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    });

    it("serves several concurrent requests (more than the parallel sequences) all successfully", async () => {
        const replies = await Promise.all(Array.from({length: 5}, (_, index) =>
            client.chat.completions.create({model, messages: [{role: "user", content: `Story number ${index}`}], max_tokens: 8, temperature: 0})));
        for (const reply of replies) {
            expect(reply.choices[0]!.message.role).toBe("assistant");
            expect(reply.usage!.completion_tokens).toBeGreaterThan(0);
        }
    });

    it("lists the model with its context length and capabilities", async () => {
        const list = await client.models.list();
        const entry = list.data.find((item) => item.id === model) as unknown as Record<string, unknown>;
        expect(entry).toMatchObject({object: "model", owned_by: "chatserve", context_length: 1024, status: "loaded", loaded: true});
        expect(entry.capabilities).toContain("chat");
        const one = await client.models.retrieve(model);
        expect(one.id).toBe(model);
    });
});

/** A reply's finish_reason and usage, streamed or not. */
async function finishAndUsage(reply: unknown): Promise<{finish: string | null, usage: OpenAI.CompletionUsage}> {
    if (reply instanceof Object && Symbol.asyncIterator in reply) {
        let finish: string | null = null;
        let usage: OpenAI.CompletionUsage | undefined;
        for await (const chunk of reply as AsyncIterable<OpenAI.ChatCompletionChunk>) {
            finish = chunk.choices[0]?.finish_reason ?? finish;
            usage = chunk.usage ?? usage;
        }
        return {finish, usage: usage!};
    }
    const completion = reply as OpenAI.ChatCompletion;
    return {finish: completion.choices[0]!.finish_reason, usage: completion.usage!};
}
