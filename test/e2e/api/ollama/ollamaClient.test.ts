// Ollama's API end to end: a real server, tiny real models the tests build, and the official
// `ollama` npm client, as an Ollama user's code would call it: discovery, chat streamed and not,
// tools over two turns, FIM through /api/generate, embeddings, errors.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {Ollama, type Message, type Tool} from "ollama";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildAgentModel} from "../../../fixtures/gguf/agentModel.js";
import {buildTinyThinkingModel, THINKING_REPLY} from "../../../fixtures/gguf/thinkingModel.js";
import {buildTinyChatModel, buildTinyEmbeddingModel} from "../../../fixtures/gguf/tinyModels.js";
import {HubMirror} from "../../support/hubMirror.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const weather: Tool = {type: "function", function: {
    name: "get_weather", description: "Current weather for a city",
    parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}
}};

describe("Ollama's API through the official ollama client", () => {
    let server: TestServer;
    let ollama: Ollama;
    let dir: string;
    let mirror: HubMirror;
    const hubEndpoint = process.env.HF_ENDPOINT;

    beforeAll(async () => {
        // A local stand-in for the hub, which /api/pull reads HF_ENDPOINT for: nothing leaves the machine.
        mirror = await HubMirror.start([{id: "tester/Tiny-GGUF", files: {"tiny-Q8_0.gguf": await fs.readFile(await buildTinyChatModel(undefined, {seed: 5}))}}]);
        process.env.HF_ENDPOINT = mirror.url;
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-ollama-"));
        // Scripted weights: it calls get_weather while no tool result is in the conversation, and answers once one is.
        const agent = path.join(dir, "agent.gguf");
        await buildAgentModel(agent, {call: {name: "get_weather", arguments: "{\"city\": \"Paris\"}"}, answer: "Sunny in Paris."});
        server = await startTestServer({
            "tiny-chat": await buildTinyChatModel(),
            "tiny-tools": agent,
            "tiny-fim": await buildTinyChatModel(undefined, {fim: true}),
            "tiny-embed": await buildTinyEmbeddingModel(),
            "tiny-thinking": await buildTinyThinkingModel()
        }, {ctxSize: 2048});
        ollama = new Ollama({host: server.url.replace(/\/v1$/, "")});
    }, 60_000);
    afterAll(async () => {
        await server?.stop();
        await mirror?.close();
        await fs.rm(dir, {recursive: true, force: true});
        if (hubEndpoint == null)
            delete process.env.HF_ENDPOINT;
        else
            process.env.HF_ENDPOINT = hubEndpoint;
    });

    it("discovery: version, list, show with the served context and capabilities, ps after a load", async () => {
        expect((await ollama.version()).version).toMatch(/^\d+\.\d+\.\d+$/);
        const {models} = await ollama.list();
        expect(models.map((model) => model.name).sort()).toEqual(["tiny-chat:latest", "tiny-embed:latest", "tiny-fim:latest", "tiny-thinking:latest", "tiny-tools:latest"]);
        const tools = await ollama.show({model: "tiny-tools:latest"});
        expect(tools.capabilities).toEqual(expect.arrayContaining(["completion", "tools"]));
        expect(tools.model_info).toMatchObject({"general.architecture": "llama", "llama.context_length": 2048});
        // thinking: read from the chat template (the thinking model's writes <think>…</think>; tiny-tools' does not).
        expect((await ollama.show({model: "tiny-thinking"})).capabilities).toContain("thinking");
        expect(tools.capabilities).not.toContain("thinking");
        const fim = await ollama.show({model: "tiny-fim"});
        expect(fim.capabilities).toContain("insert");
        expect(fim.template).toContain(".Suffix");

        await ollama.generate({model: "tiny-chat", prompt: ""});
        const running = await ollama.ps();
        const chat = running.models.find((model) => model.name === "tiny-chat:latest");
        // What the model was loaded with, as /v1/models says too.
        const listed = await (await fetch(`${server.url}/models/tiny-chat`)).json() as {context_length: number};
        expect(chat).toMatchObject({context_length: listed.context_length, size_vram: 0});
        expect(chat!.size).toBeGreaterThan(0);
    });

    it("chat: streamed pieces add up to the reply sent whole, with measured counts and durations", async () => {
        const request = {model: "tiny-chat:latest", messages: [{role: "user", content: "Tell me a story"}], options: {temperature: 0, num_predict: 12}};
        const whole = await ollama.chat({...request, stream: false});
        expect(whole.done).toBe(true);
        expect(whole.done_reason).toBe("length");
        expect(whole.eval_count).toBe(12);
        expect(whole.prompt_eval_count).toBeGreaterThan(0);
        expect(whole.eval_duration).toBeGreaterThan(0);
        expect(whole.total_duration).toBeGreaterThanOrEqual(whole.eval_duration + whole.prompt_eval_duration);

        let text = "";
        let last: Awaited<ReturnType<typeof ollama.chat>> | undefined;
        for await (const part of await ollama.chat({...request, stream: true})) {
            text += part.message.content;
            last = part;
        }
        expect(text).toBe(whole.message.content);
        expect(last).toMatchObject({done: true, done_reason: "length", eval_count: 12});
    });

    it("think: a reasoning model's thought in message.thinking, apart from the answer, streamed and not; think false turns it off", async () => {
        const request = {model: "tiny-thinking", messages: [{role: "user", content: "Say hello."}], options: {num_predict: 40}};
        const whole = await ollama.chat({...request, think: true, stream: false});
        expect(whole.message.thinking).toBe(THINKING_REPLY.reasoning);
        expect(whole.message.content).toBe(THINKING_REPLY.content);
        let thinking = "";
        let content = "";
        for await (const part of await ollama.chat({...request, think: true, stream: true})) {
            thinking += part.message.thinking ?? "";
            content += part.message.content;
        }
        expect({thinking, content}).toEqual({thinking: THINKING_REPLY.reasoning, content: THINKING_REPLY.content});
        const off = await ollama.generate({model: "tiny-thinking", prompt: "Say hello.", think: false, stream: false, options: {num_predict: 40}});
        expect(off.thinking).toBeUndefined();
    });

    it("format: a JSON schema's reply parses and matches it", async () => {
        const schema = {type: "object", properties: {answer: {type: "integer"}}, required: ["answer"]};
        const reply = await ollama.chat({model: "tiny-chat", messages: [{role: "user", content: "2+2?"}], format: schema, stream: false, options: {temperature: 0, num_predict: 40}});
        expect(Number.isInteger(JSON.parse(reply.message.content).answer)).toBe(true);
    });

    it("tools over two turns: calls with object arguments, then the tool's result answered", async () => {
        const messages: Message[] = [{role: "user", content: "What is the weather in Paris?"}];
        const first = await ollama.chat({model: "tiny-tools", messages, tools: [weather], stream: false, options: {temperature: 0, num_predict: 64}});
        const calls = first.message.tool_calls ?? [];
        expect(calls.map((call) => call.function)).toEqual([{index: 0, name: "get_weather", arguments: {city: "Paris"}}]);
        expect(first.done_reason).toBe("stop");
        // Streamed, the same calls come whole, arguments as objects.
        const streamedCalls = [];
        for await (const part of await ollama.chat({model: "tiny-tools", messages, tools: [weather], stream: true, options: {temperature: 0, num_predict: 64}}))
            streamedCalls.push(...part.message.tool_calls ?? []);
        expect(streamedCalls.map((call) => call.function)).toEqual(calls.map((call) => call.function));

        messages.push(first.message, ...calls.map((call) => ({role: "tool", tool_name: call.function.name, content: "18 degrees and sunny"})));
        const second = await ollama.chat({model: "tiny-tools", messages, tools: [weather], stream: false, options: {temperature: 0, num_predict: 16}});
        expect(second.message.content).toBe("Sunny in Paris.");
        expect(second.message.tool_calls).toBeUndefined();
        expect(second.prompt_eval_count).toBeGreaterThan(first.prompt_eval_count);
    });

    it("generate: FIM with a suffix, raw, and the templated prompt, streamed and not", async () => {
        const fim = await ollama.generate({model: "tiny-fim", prompt: "def add(a, b):\n    ", suffix: "\n    return c", stream: false, options: {temperature: 0, num_predict: 8}});
        expect(fim.done).toBe(true);
        expect(fim.eval_count).toBeGreaterThan(0);
        await expect(ollama.generate({model: "tiny-chat", prompt: "x", suffix: "y", stream: false})).rejects.toMatchObject({
            status_code: 400, error: expect.stringContaining("fill-in-the-middle")
        });

        const raw = await ollama.generate({model: "tiny-chat", prompt: "the cat", raw: true, stream: false, options: {temperature: 0, num_predict: 6}});
        expect(raw).toMatchObject({done: true, done_reason: "length", eval_count: 6});
        let text = "";
        for await (const part of await ollama.generate({model: "tiny-chat", prompt: "the cat", raw: true, stream: true, options: {temperature: 0, num_predict: 6}}))
            text += part.response;
        expect(text).toBe(raw.response);
        // Templated: the prompt becomes a user turn, so it counts more tokens than the raw prompt.
        const templated = await ollama.generate({model: "tiny-chat", prompt: "the cat", system: "Be brief.", stream: false, options: {num_predict: 4}});
        expect(templated.prompt_eval_count).toBeGreaterThan(raw.prompt_eval_count);
    });

    it("embeddings: /api/embed for one text or several, and the older /api/embeddings", async () => {
        const one = await ollama.embed({model: "tiny-embed", input: "hello world"});
        expect(one.embeddings).toHaveLength(1);
        expect(Math.hypot(...one.embeddings[0]!)).toBeCloseTo(1, 4);
        const two = await ollama.embed({model: "tiny-embed:latest", input: ["hello world", "goodbye"]});
        expect(two.embeddings).toHaveLength(2);
        expect(two.embeddings[0]).toEqual(one.embeddings[0]);
        const old = await ollama.embeddings({model: "tiny-embed", prompt: "hello world"});
        expect(old.embedding).toEqual(one.embeddings[0]);
    });

    it("pull: Ollama's hf.co name, NDJSON progress up to success, the model served at once; delete takes it out of the folder", async () => {
        const names = async () => (await ollama.list()).models.map((model) => model.name);
        const before = await names();
        const statuses = [];
        let completed = 0;
        for await (const progress of await ollama.pull({model: "hf.co/tester/Tiny-GGUF:Q8_0", stream: true})) {
            statuses.push(progress.status);
            if (progress.total > 0) {
                expect(progress.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
                completed = progress.completed;
                expect(completed).toBeLessThanOrEqual(progress.total);
            }
        }
        expect(statuses[0]).toBe("pulling manifest");
        expect(statuses.at(-1)).toBe("success");
        expect(completed).toBeGreaterThan(0);
        // Listed at once, under its file's name.
        expect((await names()).filter((name) => !before.includes(name))).toEqual(["tiny-Q8_0:latest"]);
        const pulled = "tiny-Q8_0";
        expect((await ollama.chat({model: pulled, messages: [{role: "user", content: "hi"}], stream: false, options: {num_predict: 2}})).done).toBe(true);
        // Pulled again: nothing to download.
        expect(await ollama.pull({model: "hf:tester/Tiny-GGUF:Q8_0", stream: false})).toEqual({status: "success"});

        await ollama.delete({model: `${pulled}:latest`});
        expect(await names()).toEqual(before);
        await expect(ollama.delete({model: pulled})).rejects.toMatchObject({status_code: 404});
        await expect(ollama.pull({model: "llama3.2"})).rejects.toMatchObject({status_code: 400, error: expect.stringContaining("hf.co")});
        await expect(ollama.pull({model: "hf.co/tester/Missing-GGUF", stream: false})).rejects.toMatchObject({status_code: 502});
    });

    it("errors: an unknown model, a num_ctx beyond the served context, an embedding from a chat model", async () => {
        await expect(ollama.chat({model: "nope", messages: [{role: "user", content: "hi"}]})).rejects.toMatchObject({status_code: 404, error: expect.stringContaining("nope")});
        await expect(ollama.chat({model: "tiny-chat", messages: [{role: "user", content: "hi"}], options: {num_ctx: 32768}})).rejects.toMatchObject({
            status_code: 400, error: expect.stringContaining("2048")
        });
        await expect(ollama.embed({model: "tiny-chat", input: "x"})).rejects.toMatchObject({status_code: 400});
        // The server still serves.
        expect((await ollama.chat({model: "tiny-chat", messages: [{role: "user", content: "hi"}], stream: false, options: {num_predict: 2}})).done).toBe(true);
    });
});
