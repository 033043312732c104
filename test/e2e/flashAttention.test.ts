// --flash-attention reaches the llama.cpp contexts the server creates, and they still generate.
import {LlamaModel, type LlamaContext} from "node-llama-cpp";
import {afterEach, describe, expect, it, vi} from "vitest";
import {buildTinyChatModel} from "../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "./support/testServer.js";

const contexts: LlamaContext[] = [];
const createContext = LlamaModel.prototype.createContext;
vi.spyOn(LlamaModel.prototype, "createContext").mockImplementation(async function (this: LlamaModel, ...args) {
    const context = await createContext.apply(this, args);
    contexts.push(context);
    return context;
});

describe("--flash-attention", () => {
    let server: TestServer | undefined;
    afterEach(async () => {
        await server?.stop();
        contexts.length = 0;
    });

    it.each([["off", false], ["on", true]] as const)("%s: the model's context is created with flash attention %s", async (mode, expected) => {
        server = await startTestServer({"tiny-chat": await buildTinyChatModel()}, {flashAttention: mode, parallel: 1});
        const reply = await server.client().chat.completions.create({
            model: "tiny-chat", messages: [{role: "user", content: "Hello there."}], max_tokens: 4, temperature: 0
        });
        expect(reply.usage?.completion_tokens).toBeGreaterThan(0);
        expect(contexts.map((context) => context.flashAttention)).toEqual([expected]);
    });
});
