// What each family's model writes on its own when it calls a tool (tool_choice "auto"), read back
// as a tool call through the official client: a scripted model (test/fixtures/gguf/
// scriptedFamilyModel.ts) carrying the family's official template writes the family's native call
// text, as llama.cpp's tests/test-chat.cpp shows each family writing it, with a thought or text
// before the call where the family writes one.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {ChatCompletionMessageFunctionToolCall, ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {writeScriptedFamilyModel} from "../../../fixtures/gguf/scriptedFamilyModel.js";
import {familyCallTexts as families} from "../../../fixtures/templates/familyCallTexts.js";
import {familyTemplate} from "../../../fixtures/templates/familyTemplates.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const tools: ChatCompletionTool[] = [{type: "function", function: {
    name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}
}}, {type: "function", function: {
    name: "get_forecast", parameters: {type: "object", properties: {days: {type: "integer"}}, required: ["days"]}
}}];
const weatherInParis = {name: "get_weather", arguments: {city: "Paris"}};
let server: TestServer;
let dir: string;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-free-calls-"));
    const models: Record<string, string> = {};
    for (const [name, family] of Object.entries(families))
        models[name] = await writeScriptedFamilyModel(dir, name, familyTemplate(family.template), family.script);
    server = await startTestServer(models, {ctxSize: 8192, parallel: 1});
}, 120_000);

afterAll(async () => {
    await server?.stop();
    await fs.rm(dir, {recursive: true, force: true});
});

describe.each(Object.keys(families))("%s's own call text, written freely", (model) => {
    const family = families[model]!;
    // One call: after it chatserve forces the family's closing markup, from which a scripted model
    // (whose next token depends on the last alone) cannot find its way back to its script.
    const request = {
        model, messages: [{role: "user" as const, content: "Weather in Paris?"}], parallel_tool_calls: false, max_tokens: 96,
        tools: family.tools?.map((tool): ChatCompletionTool => ({type: "function", function: tool})) ?? tools
    };

    it("comes back as a tool call", async () => {
        const reply = await server.client().chat.completions.create(request);
        const choice = reply.choices[0]!;
        const message = choice.message as typeof choice.message & {reasoning_content?: string};
        const calls = (message.tool_calls ?? []) as ChatCompletionMessageFunctionToolCall[];
        if (family.callId != null)
            expect(calls.map((call) => call.id)).toEqual([family.callId]);
        expect({
            finish: choice.finish_reason, content: message.content?.trim() || null, reasoning: message.reasoning_content?.trim() || null,
            calls: calls.map((one) => ({name: one.function.name, arguments: JSON.parse(one.function.arguments)}))
        }).toEqual({finish: "tool_calls", content: family.content ?? null, reasoning: family.reasoning ?? null, calls: [family.call ?? weatherInParis]});
    });

    it("streamed: the same call", async () => {
        const stream = await server.client().chat.completions.create({...request, stream: true});
        let name = "";
        let text = "";
        let finish: string | null = null;
        for await (const chunk of stream) {
            finish = chunk.choices[0]?.finish_reason ?? finish;
            for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
                name += fragment.function?.name ?? "";
                text += fragment.function?.arguments ?? "";
            }
        }
        expect({name, args: text === "" ? null : JSON.parse(text), finish}).toEqual({name: (family.call ?? weatherInParis).name, args: (family.call ?? weatherInParis).arguments, finish: "tool_calls"});
    });
});
