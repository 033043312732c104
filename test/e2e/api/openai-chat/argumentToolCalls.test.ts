// Families that write each argument on its own (Qwen3-Coder, Qwen3.5 and Nemotron 3 `<parameter=…>`, GLM `<arg_key>`, Gemma 4 `call:f{…}`,
// MiniMax-M2's `<invoke>`; Gemma 4's objects and arrays in its notation too) end to end through the official client: a tiny random-weight model
// carrying the family's official template (its markers as tokens of its own) is made to call a
// tool, named and required, streamed and not; the call and its result go back through the template
// in the next turn, written in the family's own markup. Random weights write gibberish: every valid
// call is the work of the family's markup, forced, and of its values constrained to the schema.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {Ajv} from "ajv";
import type {ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageFunctionToolCall, ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {familyTemplate, writeFamilyModel} from "../../../fixtures/templates/familyTemplates.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const parameters = {
    type: "object", properties: {city: {type: "string", minLength: 1, maxLength: 12}, days: {type: "integer", minimum: 1, maximum: 7}},
    required: ["city", "days"], additionalProperties: false
};
const tools: ChatCompletionTool[] = [{type: "function", function: {name: "get_weather", description: "Weather for a city", parameters}}];
const valid = new Ajv({strict: false}).compile(parameters);
const question = [{role: "user" as const, content: "What is the weather in Paris?"}];

const families = [{template: "Qwen3-Coder"}, {template: "GLM-4.6"}, {template: "MiniMax-M2"}, {template: "google-gemma-4-31B-it"}, {template: "Qwen3.5-4B"}, {template: "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"}];
const id = (family: string) => family.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 40);

let server: TestServer;
let dir: string;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-argument-calls-"));
    const models: Record<string, string> = {};
    for (const {template} of families) {
        models[id(template)] = await writeFamilyModel(dir, id(template), familyTemplate(template));
    }
    server = await startTestServer(models, {ctxSize: 8192, parallel: 1});
}, 120_000);

afterAll(async () => {
    await server?.stop();
    await fs.rm(dir, {recursive: true, force: true});
});

function expectValid(calls: ChatCompletionMessageFunctionToolCall[] | undefined): ChatCompletionMessageFunctionToolCall[] {
    expect(calls?.length).toBeGreaterThan(0);
    for (const call of calls!) {
        expect(call.function.name).toBe("get_weather");
        expect(valid(JSON.parse(call.function.arguments)), call.function.arguments).toBe(true);
    }
    return calls!;
}

describe.each(families)("$template", ({template}) => {
    const model = () => id(template);

    it.each([
        ["named", {type: "function" as const, function: {name: "get_weather"}}],
        ["required", "required" as const]
    ])("a %s call in the family's own markup, streamed and not, its arguments matching the schema", async (_, toolChoice) => {
        const client = server.client();
        const request: ChatCompletionCreateParamsNonStreaming = {model: model(), messages: question, tools, tool_choice: toolChoice, temperature: 0, max_tokens: 200};
        const reply = await client.chat.completions.create(request);
        expect(reply.choices[0]!.finish_reason).toBe("tool_calls");
        expectValid(reply.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[]);
        const stream = await client.chat.completions.create({...request, stream: true});
        const calls = new Map<number, {name: string, args: string}>();
        let finish: string | null = null;
        for await (const chunk of stream) {
            finish = chunk.choices[0]?.finish_reason ?? finish;
            for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
                const call = calls.get(fragment.index) ?? {name: "", args: ""};
                calls.set(fragment.index, {name: call.name + (fragment.function?.name ?? ""), args: call.args + (fragment.function?.arguments ?? "")});
            }
        }
        expect(finish).toBe("tool_calls");
        expect(calls.size).toBeGreaterThan(0);
        for (const call of calls.values()) {
            expect(call.name).toBe("get_weather");
            expect(valid(JSON.parse(call.args)), call.args).toBe(true);
        }
    });

    it("the call and its result go back through the template, in the family's markup, in the next turn", async () => {
        const client = server.client();
        const first = await client.chat.completions.create({model: model(), messages: question, tools, tool_choice: "required", temperature: 0, max_tokens: 200});
        const calls = expectValid(first.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[]);
        const messages = [
            ...question, {role: "assistant" as const, content: null, tool_calls: calls},
            ...calls.map((call) => ({role: "tool" as const, tool_call_id: call.id, content: "{\"temperature\": 18}"}))
        ];
        const next = await client.chat.completions.create({model: model(), tools, tool_choice: "none", max_tokens: 4, messages});
        expect(next.choices[0]!.message.tool_calls).toBeUndefined();
        expect(next.usage!.prompt_tokens).toBeGreaterThan(first.usage!.prompt_tokens);
    });
});

describe("Gemma 4: an object and an array argument, written in Gemma's notation at every depth", () => {
    const nested = {
        type: "object", properties: {opts: {type: "object", properties: {
            unit: {type: "string", enum: ["c", "f"]}, days: {type: "array", items: {type: "integer", minimum: 1, maximum: 7}, minItems: 1, maxItems: 3},
            label: {type: "string", maxLength: 8}
        }, required: ["unit", "days"], additionalProperties: false}}, required: ["opts"], additionalProperties: false
    };
    const configure: ChatCompletionTool[] = [{type: "function", function: {name: "configure", description: "Set the forecast's options", parameters: nested}}];
    const validNested = new Ajv({strict: false}).compile(nested);

    it.each([
        ["named", {type: "function" as const, function: {name: "configure"}}],
        ["required", "required" as const]
    ])("a %s call's nested arguments match the schema, streamed and not, and go back through the template in the next turn", async (_, toolChoice) => {
        const client = server.client();
        const request: ChatCompletionCreateParamsNonStreaming = {
            model: id("google-gemma-4-31B-it"), messages: question, tools: configure, tool_choice: toolChoice, temperature: 0, max_tokens: 200
        };
        const reply = await client.chat.completions.create(request);
        expect(reply.choices[0]!.finish_reason).toBe("tool_calls");
        // "required" lets the model go on calling (parallel calls): each call is checked.
        const calls = reply.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[];
        expect(calls.length).toBeGreaterThan(0);
        for (const call of calls) {
            expect(call.function.name).toBe("configure");
            expect(validNested(JSON.parse(call.function.arguments)), call.function.arguments).toBe(true);
        }

        const streamed: string[] = [];
        for await (const chunk of await client.chat.completions.create({...request, stream: true})) {
            for (const fragment of chunk.choices[0]?.delta.tool_calls ?? [])
                streamed[fragment.index] = (streamed[fragment.index] ?? "") + (fragment.function?.arguments ?? "");
        }
        // Greedy decoding: the same arguments, however the stream cut them.
        expect(streamed.map((text) => JSON.parse(text))).toEqual(calls.map((call) => JSON.parse(call.function.arguments)));

        const messages = [...question, {role: "assistant" as const, content: null, tool_calls: calls},
            ...calls.map((call) => ({role: "tool" as const, tool_call_id: call.id, content: "done"}))];
        const next = await client.chat.completions.create({model: request.model, tools: configure, tool_choice: "none", max_tokens: 4, messages});
        expect(next.usage!.prompt_tokens).toBeGreaterThan(reply.usage!.prompt_tokens);
    });
});
