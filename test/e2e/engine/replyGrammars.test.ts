// The constrained-decoding biases on a real vocabulary (the tiny tools model's, with SentencePiece byte
// tokens), and grammars of chatserve's own on the shared models.
import {getLlama, LlamaLogLevel, type LlamaModel, type Token, type TokenBias} from "node-llama-cpp";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {ReplyGrammars} from "../../../src/engine/reply/grammars.js";
import type {ChatCompletionMessageFunctionToolCall} from "openai/resources/chat/completions";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../support/sharedModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/** node-llama-cpp keeps a bias's entries in `_biases` (3.x). */
const banned = (bias: TokenBias, token: Token) => (bias as unknown as {_biases: Map<Token, number>})._biases.get(token) === -Infinity;

describe("ReplyGrammars.nextBias", () => {
    let model: LlamaModel;
    beforeAll(async () => {
        const llama = await getLlama({build: "never", gpu: false, maxThreads: 0, logLevel: LlamaLogLevel.error});
        model = await llama.loadModel({modelPath: await buildTinyChatModel(undefined, {tools: true})});
    });
    afterAll(async () => model?.dispose());

    it("adds the bans that keep UTF-8 valid after E0 to the shaper's own bias, not in its place", () => {
        const grammars = new ReplyGrammars(model);
        const vocabulary = model.fileInfo.metadata.tokenizer.ggml.tokens;
        const byte = (value: number) => vocabulary.indexOf(`<0x${value.toString(16).toUpperCase()}>`) as Token;
        const call = grammars.tokenize("<tool_call>")[0]!;
        const noCalls = grammars.banning("<tool_call>");

        expect(grammars.nextBias(noCalls, byte(0x41))).toBe(noCalls);
        const afterE0 = grammars.nextBias(noCalls, byte(0xE0));
        expect([banned(afterE0, call), banned(afterE0, byte(0x90)), banned(afterE0, byte(0xA0)), banned(afterE0, byte(0xC0))]).toEqual([true, true, false, true]);
        // Without a shaper's bias: the constrained one, with the same bans after E0.
        expect(banned(grammars.nextBias(undefined, byte(0xE0)), byte(0x90))).toBe(true);
        expect(banned(grammars.nextBias(undefined, byte(0x41)), byte(0x90))).toBe(false);
    });
});

// node-llama-cpp writes an enum as one alternation, which llama.cpp followed 2,000 ways at every token;
// chatserve writes enums of strings as a prefix tree (engine/reply/stringEnumTrie.ts).
describe.runIf(hasSharedModels)("a large enum of strings on a real vocabulary (the tiny Qwen model's BPE)", () => {
    const values = [...Array.from({length: 2000}, (_, index) => `v${index}`), "v1\"quoted\"", "back\\slash", "café ☕", "😀"];
    const enumSchema = {type: "object", properties: {pick: {type: "string", enum: values}}, required: ["pick"], additionalProperties: false};
    let server: TestServer;
    beforeAll(async () => { server = await startTestServer({qwen: sharedModels.qwenTools}, {threads: 1, ctxSize: 16384}); });
    afterAll(async () => server?.stop());

    it("replies with one of its values, in response_format and in a tool's parameters", async () => {
        const client = server.client();
        for (const seed of [1, 2]) {
            const reply = await client.chat.completions.create({
                model: "qwen", messages: [{role: "user", content: "Pick one."}], temperature: 1, seed, max_tokens: 40,
                response_format: {type: "json_schema", json_schema: {name: "pick", strict: true, schema: enumSchema}}
            });
            expect(values, reply.choices[0]!.message.content!).toContain(JSON.parse(reply.choices[0]!.message.content!).pick);
        }
        // The tool's schema goes into the prompt too: 13,000 tokens of it.
        const call = await client.chat.completions.create({
            model: "qwen", messages: [{role: "user", content: "Pick one."}], temperature: 1, seed: 3, max_tokens: 60, tool_choice: "required",
            tools: [{type: "function", function: {name: "choose", parameters: enumSchema}}]
        });
        const [toolCall] = call.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[];
        expect(values, toolCall!.function.arguments).toContain(JSON.parse(toolCall!.function.arguments).pick);
    });
});
