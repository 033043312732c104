// A call as a Qwen3-Coder model writes it on its own (tool_choice "auto"), read back as a tool call
// through the official client: a scripted model (test/fixtures/gguf/scriptedModel.ts) writes a line
// of text and then the family's native call text, `<tool_call>\n<function=…>\n<parameter=…>…`,
// or the same call without its `<tool_call>`, as Qwen3-Coder models sometimes write it. The same
// reply through Anthropic's client is a tool_use block.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type {ChatCompletionMessageFunctionToolCall, ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {str} from "../../../fixtures/gguf/ggufWriter.js";
import {SCRIPTED_SHAPE, scriptTensors} from "../../../fixtures/gguf/scriptedModel.js";
import {llamaChatMetadata, writeCached} from "../../../fixtures/gguf/tinyModels.js";
import {buildSpmVocab, TokenType} from "../../../fixtures/gguf/vocab.js";
import {familyTemplate} from "../../../fixtures/templates/familyTemplates.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const tools: ChatCompletionTool[] = [{type: "function", function: {
    name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}
}}];

/** The reply, in pieces that are tokens of the model's own, each once (a scripted token's successor is fixed). */
const call = ["\n<function=", "get_weather>", "\n<parameter=city>\n", "<b>São Paulo</b>", "\n</parameter>", "\n</function>\n", "</tool_call>"];
const scripts = {
    "with-opening": ["Checking the weather.", "<tool_call>", ...call],
    "without-opening": ["Checking the weather.", ...call]
};

let server: TestServer;
let dir: string;

async function scriptedModel(name: string, script: readonly string[]): Promise<string> {
    const vocab = buildSpmVocab();
    vocab.add("<|im_start|>", TokenType.control);
    const imEnd = vocab.add("<|im_end|>", TokenType.control);
    // Qwen3-Coder's <tool_call> is an added token, read as a whole in any text.
    for (const piece of new Set([...script, "<tool_call>", "</tool_call>"]))
        vocab.add(piece, TokenType.userDefined);
    return writeCached(dir, name, {
        metadata: {
            ...llamaChatMetadata(`chatserve scripted ${name}`, SCRIPTED_SHAPE, vocab, {eos: imEnd, addBos: false}),
            "tokenizer.chat_template": str(familyTemplate("Qwen3-Coder"))
        },
        tensors: scriptTensors(vocab.tokens.length, [...script, "<|im_end|>"].map((piece) => vocab.id(piece)))
    });
}

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-native-calls-"));
    const models: Record<string, string> = {};
    for (const [name, script] of Object.entries(scripts))
        models[name] = await scriptedModel(name, script);
    server = await startTestServer(models, {ctxSize: 2048, parallel: 1});
}, 120_000);

afterAll(async () => {
    await server?.stop();
    await fs.rm(dir, {recursive: true, force: true});
});

describe.each(Object.keys(scripts))("Qwen3-Coder's own call text (%s)", (model) => {
    const request = {model, messages: [{role: "user" as const, content: "Weather in São Paulo?"}], tools, max_tokens: 64};

    it("comes back as a tool call, its text before the call as content", async () => {
        const reply = await server.client().chat.completions.create(request);
        const choice = reply.choices[0]!;
        expect(choice.finish_reason).toBe("tool_calls");
        expect(choice.message.content?.trim()).toBe("Checking the weather.");
        const calls = choice.message.tool_calls as ChatCompletionMessageFunctionToolCall[];
        expect(calls.map((one) => ({name: one.function.name, arguments: JSON.parse(one.function.arguments)}))).toEqual([{name: "get_weather", arguments: {city: "<b>São Paulo</b>"}}]);
    });

    it("streamed: the same call, its arguments in pieces", async () => {
        const stream = await server.client().chat.completions.create({...request, stream: true});
        let content = "";
        let name = "";
        let args = "";
        let finish: string | null = null;
        for await (const chunk of stream) {
            content += chunk.choices[0]?.delta.content ?? "";
            finish = chunk.choices[0]?.finish_reason ?? finish;
            for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
                name += fragment.function?.name ?? "";
                args += fragment.function?.arguments ?? "";
            }
        }
        expect({content: content.trim(), name, args: JSON.parse(args), finish}).toEqual({content: "Checking the weather.", name: "get_weather", args: {city: "<b>São Paulo</b>"}, finish: "tool_calls"});
    });

    it("through Anthropic's client: text, then a tool_use block with the arguments as input", async () => {
        const client = new Anthropic({baseURL: server.url.replace(/\/v1$/, ""), apiKey: "no-key", maxRetries: 0, timeout: 60_000});
        const reply = await client.messages.create({
            model, max_tokens: 64, messages: request.messages,
            tools: [{name: "get_weather", input_schema: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}}]
        });
        expect(reply.stop_reason).toBe("tool_use");
        const blocks = reply.content.map((block) => block.type === "text" ? {text: block.text.trim()} : block.type === "tool_use" ? {name: block.name, input: block.input} : block);
        expect(blocks).toEqual([{text: "Checking the weather."}, {name: "get_weather", input: {city: "<b>São Paulo</b>"}}]);
    });
});
