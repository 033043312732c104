// --flash-attention reaches the llama.cpp contexts the server creates, and they still generate; with
// `auto` on chatserve's own build, a short run after a long context runs without flash attention
// (native/decodeBatch.cpp) and reads the cache flash attention wrote.
import {getLlama, LlamaLogLevel, LlamaModel, type LlamaContext} from "node-llama-cpp";
import {afterEach, describe, expect, it, vi} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

const contexts: LlamaContext[] = [];
/** Each batch chatserve's decode call ran, and whether without flash attention. */
const ranPlain: boolean[] = [];
const createContext = LlamaModel.prototype.createContext;
vi.spyOn(LlamaModel.prototype, "createContext").mockImplementation(async function (this: LlamaModel, ...args) {
    const context = await createContext.apply(this, args);
    contexts.push(context);
    recordDecodes((context as unknown as {_llama: {_bindings: Record<string, unknown>}})._llama._bindings);
    return context;
});

type DecodeCall = ((...args: unknown[]) => Promise<boolean>) & {recorded?: true};

function recordDecodes(bindings: Record<string, unknown>): void {
    const ours = bindings.chatserveDecodeBatch as DecodeCall | undefined;
    if (typeof ours !== "function" || ours.recorded)
        return;
    const recorded: DecodeCall = async (...args) => {
        const plain = await ours(...args);
        ranPlain.push(plain);
        return plain;
    };
    recorded.recorded = true;
    bindings.chatserveDecodeBatch = recorded;
}

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

describe("--flash-attention auto, on the addon chatserve compiles", () => {
    it("runs a follow-up turn's few new tokens after 1,024 cached ones without flash attention, and replies as flash attention does", async (context) => {
        const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
        if (typeof (llama as unknown as {_bindings: Record<string, unknown>})._bindings.chatserveDecodeBatch !== "function")
            return context.skip(); // node-llama-cpp's prebuilt addon: every batch is its own

        const model = await buildTinyChatModel();
    const conversation = async (mode: "auto" | "on") => {
        // Token by token: a drafted run of a few tokens past 1,024 is such a batch too, and would run without flash attention as well.
        const running = await startTestServer({"tiny-chat": model}, {flashAttention: mode, parallel: 1, ctxSize: 2048, lookupDecoding: false});
        try {
            const client = running.client();
            const system = {role: "system", content: Array.from({length: 160}, (_, index) => `note ${index} holds.`).join(" ")} as const;
            const question = {role: "user", content: "What holds?"} as const;
            const turn1 = await client.chat.completions.create({model: "tiny-chat", messages: [system, question], max_tokens: 8, temperature: 0});
            ranPlain.length = 0;
            const turn2 = await client.chat.completions.create({
                model: "tiny-chat", temperature: 0, max_tokens: 16,
                messages: [system, question, {role: "assistant", content: turn1.choices[0]!.message.content}, {role: "user", content: "And then?"}]
            });
            return {turn1, turn2, turn2RanPlain: [...ranPlain]};
        } finally {
            await running.stop();
        }
    };

    const flash = await conversation("on");
    expect(flash.turn2RanPlain).toEqual([]);
    const auto = await conversation("auto");
    expect(auto.turn1.usage!.prompt_tokens).toBeGreaterThan(1024);
    const cached = auto.turn2.usage!.prompt_tokens_details!.cached_tokens!;
    expect(auto.turn2.usage!.prompt_tokens - cached).toBeLessThan(64);
    // Turn 2's new tokens (its first batch) ran without flash attention, its one-token steps with it.
    expect(auto.turn2RanPlain).toEqual([true, ...Array(auto.turn2.usage!.completion_tokens - 1).fill(false)]);
    // The cache flash attention wrote reads the same without it: the replies are flash attention's
    // (on this machine; the two kernels round differently, so a near tie could go either way elsewhere).
    expect(auto.turn2.choices[0]!.message.content).toBe(flash.turn2.choices[0]!.message.content);
    expect(auto.turn1.choices[0]!.message.content).toBe(flash.turn1.choices[0]!.message.content);
    });
});
