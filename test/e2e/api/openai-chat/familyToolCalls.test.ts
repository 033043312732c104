// Each model family's own tool-call format end to end, through the official client: a tiny model
// carrying the family's official chat template (its markers as tokens of its own, as the family's
// GGUFs have them) is made to call a tool, streamed and not, then reads the call and its result in
// the next turn. Random weights write gibberish: every valid call is the work of the family's own
// call markup, forced, and of its arguments constrained to the schema.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {Ajv} from "ajv";
import type {ChatCompletionMessageFunctionToolCall, ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {familyTemplate, writeFamilyModel, type FamilyTemplateName} from "../../../fixtures/templates/familyTemplates.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const parameters = {
    type: "object", properties: {city: {type: "string", maxLength: 12}, days: {type: "integer", minimum: 1, maximum: 7}}, required: ["city", "days"], additionalProperties: false
};
const tools: ChatCompletionTool[] = [{type: "function", function: {name: "get_weather", description: "Weather for a city", parameters}}];
const valid = new Ajv({strict: false}).compile(parameters);
const question = [{role: "user" as const, content: "What is the weather in Paris?"}];

const families: FamilyTemplateName[] = [
    "meta-llama-Llama-3.1-8B-Instruct", "Mistral-Small-3.2-24B-Instruct-2506", "unsloth-mistral-Devstral-Small-2507",
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "deepseek-ai-DeepSeek-V3.1", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use",
    "ibm-granite-granite-4.0", "moonshotai-Kimi-K2", "CohereForAI-c4ai-command-r7b-12-2024-tool_use", "Qwen-Qwen3-0.6B", "mistralai-Mistral-Nemo-Instruct-2407",
    "openai-gpt-oss-120b", "meetkai-functionary-medium-v3.2"
];
const id = (family: string) => family.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 40);

let server: TestServer;
let dir: string;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-families-"));
    const models: Record<string, string> = {};
    for (const family of families) {
        models[id(family)] = await writeFamilyModel(dir, id(family), familyTemplate(family));
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

describe.each(families)("%s", (family) => {
    const model = () => id(family);

    it("a named call in the family's own markup, streamed and not, its arguments matching the schema", async () => {
        const client = server.client();
        const request = {model: model(), messages: question, tools, tool_choice: {type: "function" as const, function: {name: "get_weather"}}, temperature: 0, max_tokens: 160};
        const reply = await client.chat.completions.create(request);
        expect(reply.choices[0]!.finish_reason).toBe("tool_calls");
        expect(expectValid(reply.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[])).toHaveLength(1);
        const stream = await client.chat.completions.create({...request, stream: true});
        let name = "";
        let args = "";
        for await (const chunk of stream)
            for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
                name += fragment.function?.name ?? "";
                args += fragment.function?.arguments ?? "";
            }
        expect(name).toBe("get_weather");
        expect(valid(JSON.parse(args)), args).toBe(true);
    });

    it("the call and its result go back through the template in the next turn", async () => {
        const client = server.client();
        const first = await client.chat.completions.create({model: model(), messages: question, tools, tool_choice: "required", temperature: 0, max_tokens: 160});
        const calls = expectValid(first.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[]);
        const results = calls.map((call) => ({role: "tool" as const, tool_call_id: call.id, content: "{\"temperature\": 18}"}));
        const next = await client.chat.completions.create({
            model: model(), tools, tool_choice: "none", max_tokens: 4, messages: [...question, {role: "assistant", content: null, tool_calls: calls}, ...results]
        });
        expect(next.choices[0]!.message.tool_calls).toBeUndefined();
        expect(next.usage!.prompt_tokens).toBeGreaterThan(first.usage!.prompt_tokens);
    });
});

describe("GPT-OSS's structured answer", () => {
    it("is the JSON alone (createReplyShaper.test.ts pins the final channel's header forced before it)", async () => {
        const client = server.client();
        const reply = await client.chat.completions.create({
            model: id("openai-gpt-oss-120b"), messages: question, temperature: 0, max_tokens: 160,
            response_format: {type: "json_schema", json_schema: {name: "weather", schema: parameters, strict: true}}
        });
        expect(valid(JSON.parse(reply.choices[0]!.message.content!)), reply.choices[0]!.message.content!).toBe(true);
    });
});
