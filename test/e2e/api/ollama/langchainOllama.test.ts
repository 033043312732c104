// Ollama's API end to end through @langchain/ollama, the client n8n's Ollama nodes (and LangChain.js
// apps) use: ChatOllama always streams /api/chat, sends a tool result without tool_name or
// tool_call_id, and turns withStructuredOutput into `format`; OllamaEmbeddings posts /api/embed.
// A real server on the tiny real models the official client's test uses.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage} from "@langchain/core/messages";
import {ChatOllama, OllamaEmbeddings} from "@langchain/ollama";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildAgentModel} from "../../../fixtures/gguf/agentModel.js";
import {buildTinyThinkingModel, THINKING_REPLY} from "../../../fixtures/gguf/thinkingModel.js";
import {buildTinyChatModel, buildTinyEmbeddingModel} from "../../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const weather = {type: "function", function: {
    name: "get_weather", description: "Current weather for a city",
    parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}
}};

describe("Ollama's API through @langchain/ollama", () => {
    let server: TestServer;
    let baseUrl: string;
    let dir: string;

    beforeAll(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-langchain-"));
        // Scripted weights: it calls get_weather while no tool result is in the conversation, and answers once one is.
        const agent = path.join(dir, "agent.gguf");
        await buildAgentModel(agent, {call: {name: "get_weather", arguments: "{\"city\": \"Paris\"}"}, answer: "Sunny in Paris."});
        server = await startTestServer({
            "tiny-chat": await buildTinyChatModel(),
            "tiny-tools": agent,
            "tiny-embed": await buildTinyEmbeddingModel(),
            "tiny-thinking": await buildTinyThinkingModel()
        }, {ctxSize: 2048});
        baseUrl = server.url.replace(/\/v1$/, "");
    }, 60_000);
    afterAll(async () => {
        await server?.stop();
        await fs.rm(dir, {recursive: true, force: true});
    });

    it("invoke and stream: the streamed chunks add up to the reply invoke returns, with measured usage", async () => {
        const chat = new ChatOllama({baseUrl, model: "tiny-chat:latest", temperature: 0, numPredict: 12});
        const messages = [new SystemMessage("Be brief."), new HumanMessage("Tell me a story")];
        const whole = await chat.invoke(messages);
        expect(typeof whole.content).toBe("string");
        expect(whole.response_metadata).toMatchObject({done: true, done_reason: "length", eval_count: 12});
        expect(whole.usage_metadata?.output_tokens).toBe(12);
        expect(whole.usage_metadata?.input_tokens).toBeGreaterThan(0);

        let text = "";
        for await (const chunk of await chat.stream(messages))
            text += chunk.content as string;
        expect(text).toBe(whole.content);
    });

    it("think: the thought comes as reasoning_content, apart from the answer", async () => {
        const chat = new ChatOllama({baseUrl, model: "tiny-thinking", think: true, numPredict: 40});
        const reply = await chat.invoke([new HumanMessage("Say hello.")]);
        expect(reply.additional_kwargs.reasoning_content).toBe(THINKING_REPLY.reasoning);
        expect(reply.content).toBe(THINKING_REPLY.content);
    });

    it("bindTools over two turns: a tool call with parsed args, then the tool's result answered", async () => {
        const chat = new ChatOllama({baseUrl, model: "tiny-tools", temperature: 0, numPredict: 64}).bindTools([weather]);
        const messages: BaseMessage[] = [new HumanMessage("What is the weather in Paris?")];
        const first = await chat.invoke(messages);
        expect(first.tool_calls?.map(({name, args}) => ({name, args}))).toEqual([{name: "get_weather", args: {city: "Paris"}}]);

        // LangChain's tool message carries only the call's id, which its Ollama converter drops:
        // chatserve pairs the result with the assistant's first unanswered call.
        messages.push(new AIMessage({content: first.content, tool_calls: first.tool_calls}),
            ...first.tool_calls!.map((call) => new ToolMessage({tool_call_id: call.id!, content: "18 degrees and sunny"})));
        const second = await chat.invoke(messages);
        expect(second.content).toBe("Sunny in Paris.");
        expect(second.tool_calls ?? []).toEqual([]);
        expect(second.usage_metadata!.input_tokens).toBeGreaterThan(first.usage_metadata!.input_tokens);
    });

    it("withStructuredOutput: a JSON schema sent as format, the reply parsed to an object that matches it", async () => {
        const schema = {title: "Answer", type: "object", properties: {answer: {type: "integer"}}, required: ["answer"]};
        // What the client really sends, seen through the fetch it takes.
        const formats: unknown[] = [];
        const recording: typeof fetch = (input, init) => {
            formats.push(JSON.parse(String(init?.body)).format);
            return fetch(input, init);
        };
        const chat = new ChatOllama({baseUrl, model: "tiny-chat", temperature: 0, numPredict: 40, fetch: recording});
        const structured = chat.withStructuredOutput<{answer: number}>(schema);
        const reply = await structured.invoke("2+2?");
        expect(Number.isInteger(reply.answer)).toBe(true);
        // jsonMode: format "json", any JSON object.
        const json = await chat.withStructuredOutput<Record<string, unknown>>(schema, {method: "jsonMode"}).invoke("2+2?");
        expect(json).toEqual(expect.any(Object));
        expect(formats).toEqual([expect.objectContaining({type: "object", required: ["answer"]}), "json"]);
    });

    it("OllamaEmbeddings: embedQuery and embedDocuments, one vector per text, the same text the same vector", async () => {
        const embeddings = new OllamaEmbeddings({baseUrl, model: "tiny-embed"});
        const query = await embeddings.embedQuery("hello world");
        expect(query.length).toBeGreaterThan(0);
        expect(Math.hypot(...query)).toBeCloseTo(1, 4);
        const documents = await embeddings.embedDocuments(["hello world", "goodbye"]);
        expect(documents).toHaveLength(2);
        expect(documents[0]).toEqual(query);
        expect(documents[1]).not.toEqual(query);
    });

    it("errors: an unknown model rejects with Ollama's message, and the server serves the next request", async () => {
        await expect(new ChatOllama({baseUrl, model: "nope"}).invoke("hi")).rejects.toThrow(/model not found/);
        const reply = await new ChatOllama({baseUrl, model: "tiny-chat", numPredict: 2}).invoke("hi");
        expect(reply.response_metadata.done).toBe(true);
    });
});
