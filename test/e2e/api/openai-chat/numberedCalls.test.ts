// Kimi K2 numbers its calls (`functions.get_weather:0`, `:1`, …), and that name is the call's id,
// as llama-server hands it out. End to end through the openai SDK on tiny random-weight models
// carrying Kimi K2's official templates: forced calls of one reply are numbered one after another,
// and a later reply's go on from the conversation's where the template counts that way (Kimi K2
// Instruct's), or start again at 0 (Kimi K2's first template). Random weights write gibberish:
// every call is the work of the forced markup and the schema's grammar.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {ChatCompletionMessageFunctionToolCall, ChatCompletionMessageParam, ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {familyTemplate, writeFamilyModel} from "../../../fixtures/templates/familyTemplates.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const tools: ChatCompletionTool[] = [{type: "function", function: {name: "get_weather", parameters: {
    type: "object", properties: {city: {type: "string", maxLength: 6}, days: {type: "integer", minimum: 1, maximum: 7}}, required: ["city", "days"], additionalProperties: false
}}}];
const templates = {"kimi-k2": "moonshotai-Kimi-K2", "kimi-k2-instruct": "Kimi-K2-Instruct"};

let server: TestServer;
let dir: string;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-numbered-calls-"));
    const models: Record<string, string> = {};
    for (const [id, template] of Object.entries(templates))
        models[id] = await writeFamilyModel(dir, id, familyTemplate(template));
    server = await startTestServer(models, {ctxSize: 8192, parallel: 1});
}, 120_000);

afterAll(async () => {
    await server?.stop();
    await fs.rm(dir, {recursive: true, force: true});
});

async function calls(model: string, messages: ChatCompletionMessageParam[]): Promise<ChatCompletionMessageFunctionToolCall[]> {
    const reply = await server.client().chat.completions.create({model, messages, tools, tool_choice: "required", temperature: 0, max_tokens: 400});
    expect(reply.choices[0]!.finish_reason).toBe("tool_calls");
    return reply.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[];
}

describe.each([["kimi-k2", "reply"], ["kimi-k2-instruct", "conversation"]] as const)("%s (counting per %s)", (model, counts) => {
    it("a reply's forced calls are numbered one after another, their ids the names, and a later reply's numbers follow the template", async () => {
        const question: ChatCompletionMessageParam[] = [{role: "user", content: "Weather in Paris and Oslo?"}];
        const first = await calls(model, question);
        // However many calls greedy decoding of these weights opens (Kimi K2's template: five here), each has the next number.
        expect(first.length).toBeGreaterThan(0);
        expect(first.map((call) => call.id)).toEqual(first.map((_, index) => `functions.get_weather:${index}`));

        const streamed = await server.client().chat.completions.create({model, messages: question, tools, tool_choice: "required", temperature: 0, max_tokens: 400, stream: true});
        const ids: string[] = [];
        for await (const chunk of streamed)
            ids.push(...(chunk.choices[0]?.delta.tool_calls ?? []).flatMap((fragment) => fragment.id == null ? [] : [fragment.id]));
        expect(ids).toEqual(first.map((call) => call.id));

        const later = await calls(model, [...question, {role: "assistant", content: null, tool_calls: first},
            ...first.map((call): ChatCompletionMessageParam => ({role: "tool", tool_call_id: call.id, content: "sunny"})),
            {role: "user", content: "And tomorrow?"}]);
        const start = counts === "conversation" ? first.length : 0;
        expect(later.map((call) => call.id)).toEqual(later.map((_, index) => `functions.get_weather:${start + index}`));
    });
});
