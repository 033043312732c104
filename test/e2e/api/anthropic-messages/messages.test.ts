// Anthropic's Messages API end to end: a real server, real GGUF models with tool-calling templates,
// the official `@anthropic-ai/sdk` (`messages.create`, `messages.stream`, `countTokens`). Random
// weights write gibberish: every valid tool input here is the work of constrained decoding.
import Anthropic from "@anthropic-ai/sdk";
import {Ajv} from "ajv";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyThinkingModel, THINKING_REPLY} from "../../../fixtures/gguf/thinkingModel.js";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../../support/sharedModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const weatherSchema = {type: "object" as const, properties: {city: {type: "string", maxLength: 16}}, required: ["city"], additionalProperties: false};
const validWeather = new Ajv({strict: false}).compile(weatherSchema);
const tools: Anthropic.ToolUnion[] = [
    {name: "get_weather", description: "Current weather for a city", input_schema: weatherSchema},
    {type: "web_search_20250305", name: "web_search"}
];
const key = "test-key";

function anthropicClient(server: TestServer): Anthropic {
    return new Anthropic({baseURL: server.url.replace(/\/v1$/, ""), apiKey: key, maxRetries: 0, timeout: 60_000});
}

function messagesConformance(label: string, modelFile: () => Promise<string>) {
    describe(`the Messages API on ${label}`, () => {
        let server: TestServer;
        let client: Anthropic;
        const base = {model: "m", max_tokens: 48, temperature: 0} as const;

        beforeAll(async () => {
            server = await startTestServer({m: await modelFile()}, {ctxSize: 2048, apiKeys: [key]});
            client = anthropicClient(server);
        });
        afterAll(async () => server?.stop());

        it("answers text, streamed and not alike; count_tokens counts what a request evaluates", async () => {
            const request = {...base, system: [{type: "text" as const, text: "Be brief.", cache_control: {type: "ephemeral" as const}}], messages: [{role: "user" as const, content: "Tell me about the cat."}]};
            const reply = await client.messages.create(request);
            expect(reply.type).toBe("message");
            expect(["end_turn", "max_tokens"]).toContain(reply.stop_reason);
            expect(reply.content[0]!.type).toBe("text");

            const stream = client.messages.stream(request);
            const types = new Set<string>();
            stream.on("streamEvent", (event) => types.add(event.type));
            const final = await stream.finalMessage();
            expect(final.content).toEqual(reply.content);
            expect([...types]).toEqual(expect.arrayContaining(["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]));
            // The second request found the first one's prompt in the cache.
            expect(final.usage.cache_read_input_tokens).toBeGreaterThan(0);

            const counted = await client.messages.countTokens({model: "m", system: request.system, messages: request.messages});
            expect(counted.input_tokens).toBe(final.usage.input_tokens + final.usage.cache_read_input_tokens!);
        });

        it("uses a tool with each tool_choice, and takes its result over the next turn", async () => {
            const question: Anthropic.MessageParam[] = [{role: "user", content: "What is the weather in Paris?"}];
            const named = await client.messages.create({...base, max_tokens: 200, messages: question, tools, tool_choice: {type: "tool", name: "get_weather", disable_parallel_tool_use: true}});
            expect(named.stop_reason).toBe("tool_use");
            const use = named.content.find((block) => block.type === "tool_use")!;
            expect(use).toMatchObject({name: "get_weather", id: expect.stringMatching(/^toolu_/)});
            expect(validWeather(use.input)).toBe(true);

            const any = await client.messages.create({...base, max_tokens: 200, messages: question, tools, tool_choice: {type: "any", disable_parallel_tool_use: true}});
            expect(any.content.some((block) => block.type === "tool_use")).toBe(true);

            const answered: Anthropic.MessageParam[] = [...question, {role: "assistant", content: named.content},
                {role: "user", content: [{type: "tool_result", tool_use_id: use.id, content: "Sunny, 21 C"}]}];
            const none = await client.messages.create({...base, messages: answered, tools, tool_choice: {type: "none"}});
            expect(none.content.every((block) => block.type === "text")).toBe(true);
            expect(none.usage.cache_read_input_tokens).toBeGreaterThan(0);
            const auto = await client.messages.create({...base, messages: answered, tools});
            expect(["end_turn", "max_tokens", "tool_use"]).toContain(auto.stop_reason);

            const stream = client.messages.stream({...base, max_tokens: 200, messages: question, tools, tool_choice: {type: "tool", name: "get_weather", disable_parallel_tool_use: true}});
            let partialJson = "";
            stream.on("inputJson", (delta) => partialJson += delta);
            const final = await stream.finalMessage();
            const streamedUse = final.content.find((block) => block.type === "tool_use")!;
            expect(streamedUse.input).toEqual(JSON.parse(partialJson));
        });

        it("raises the SDK's error classes", async () => {
            await expect(client.messages.create({...base, model: "missing", messages: [{role: "user", content: "hi"}]})).rejects.toBeInstanceOf(Anthropic.NotFoundError);
            await expect(client.messages.create({...base, messages: [{role: "user", content: [{type: "document", source: {type: "text", media_type: "text/plain", data: "x"}}]}]}))
                .rejects.toBeInstanceOf(Anthropic.BadRequestError);
            const stranger = new Anthropic({baseURL: server.url.replace(/\/v1$/, ""), apiKey: "wrong", maxRetries: 0});
            await expect(stranger.messages.create({...base, messages: [{role: "user", content: "hi"}]})).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
        });
    });
}

messagesConformance("a tiny model with a Qwen-style tools template", () => buildTinyChatModel(undefined, {tools: true}));

describe.runIf(hasSharedModels)("real tool-calling templates from ../shared/models", () => {
    messagesConformance("Qwen2.5", async () => sharedModels.qwenTools);
    messagesConformance("Llama 3.2", async () => sharedModels.llama32Tools);
});

describe("the Messages API on a reasoning model and with stop sequences", () => {
    let server: TestServer;
    let client: Anthropic;
    beforeAll(async () => {
        server = await startTestServer({thinker: await buildTinyThinkingModel(), plain: await buildTinyChatModel()}, {apiKeys: [key]});
        client = anthropicClient(server);
    });
    afterAll(async () => server?.stop());

    it("returns the thought as a thinking block (signed), streamed as thinking deltas; thinking disabled turns it off", async () => {
        const request = {model: "thinker", max_tokens: 40, messages: [{role: "user" as const, content: "Say hello."}], thinking: {type: "enabled" as const, budget_tokens: 1024}};
        const reply = await client.messages.create(request);
        expect(reply.content).toEqual([
            {type: "thinking", thinking: THINKING_REPLY.reasoning, signature: expect.any(String)},
            {type: "text", text: THINKING_REPLY.content}
        ]);
        const stream = client.messages.stream(request);
        let thought = "";
        stream.on("thinking", (delta) => thought += delta);
        expect((await stream.finalMessage()).content).toEqual(reply.content);
        expect(thought).toBe(THINKING_REPLY.reasoning);

        const plain = await client.messages.create({...request, thinking: {type: "disabled"}});
        expect(plain.content.map((block) => block.type)).toEqual(["text"]);
        // A thinking block sent back is accepted.
        const next = await client.messages.create({...request, messages: [...request.messages, {role: "assistant", content: reply.content}, {role: "user", content: "Again."}]});
        expect(next.stop_reason).toBe("end_turn");
    });

    it("ends at a stop sequence and names it", async () => {
        const request = {model: "plain", max_tokens: 24, temperature: 0, messages: [{role: "user" as const, content: "Tell me about the cat."}]};
        const free = await client.messages.create(request);
        const text = (free.content[0] as Anthropic.TextBlock).text;
        const stop = text.slice(4, 8);
        expect(stop.trim()).not.toBe("");
        const cut = await client.messages.create({...request, stop_sequences: [stop]});
        expect(cut).toMatchObject({stop_reason: "stop_sequence", stop_sequence: stop});
        expect((cut.content[0] as Anthropic.TextBlock).text).toBe(text.slice(0, text.indexOf(stop)));
    });
});
