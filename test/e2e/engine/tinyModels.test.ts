// The tiny GGUF fixtures load in node-llama-cpp and behave like the real models the server expects.
import {mkdtemp, rm, stat} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {describe, it, expect, beforeAll, afterAll} from "vitest";
import {
    ChatMLChatWrapper, getLlama, GgmlType, JinjaTemplateChatWrapper, LlamaLogLevel, readGgufFileInfo, resolveChatWrapper,
    type Llama, type LlamaModel, type Token
} from "node-llama-cpp";
import {encodeGguf, Q8_0_BLOCK_BYTES, Q8_0_BLOCK_VALUES, str, writeFileAtomic} from "../../fixtures/gguf/ggufWriter.js";
import {buildTinyChatModel, buildTinyEmbeddingModel, TINY_CHAT_SHAPE} from "../../fixtures/gguf/tinyModels.js";
import {llamaTensors} from "../../fixtures/gguf/tinyTensors.js";

// This machine class may have 2 cores: never ask for more threads than that.
const THREADS = 2;
// Loading and evaluating take well under a second here; the margin is for slow, busy CI machines.
const TIMEOUT = 30_000;

describe("tiny GGUF builders", () => {
    let dir: string;
    beforeAll(async () => { dir = await mkdtemp(path.join(os.tmpdir(), "tiny-gguf-")); });
    afterAll(async () => { await rm(dir, {recursive: true, force: true}); });

    it("writes deterministic files and reuses them", async () => {
        const first = await buildTinyChatModel(dir, {fim: true});
        const {mtimeMs} = await stat(first);
        // Same options give the same bytes, hence the same content-hashed name; the file is not rewritten.
        expect(await buildTinyChatModel(dir, {fim: true})).toBe(first);
        expect((await stat(first)).mtimeMs).toBe(mtimeMs);
        expect(await buildTinyChatModel(dir)).not.toBe(first);
        expect(await buildTinyChatModel(dir, {seed: 2})).not.toBe(await buildTinyChatModel(dir));
    });

    it("writes GGUF v3 with llama.cpp's tensor names and metadata", async () => {
        const info = await readGgufFileInfo(await buildTinyChatModel(dir), {readTensorInfo: true});
        expect(info.version).toBe(3);
        expect(info.metadata.general.architecture).toBe("llama");
        expect(info.metadata.general.alignment).toBe(32);
        expect(info.metadata.tokenizer.ggml.model).toBe("llama");
        const names = info.tensorInfo?.map((t) => t.name) ?? [];
        expect(names).toContain("token_embd.weight");
        expect(names).toContain(`blk.${TINY_CHAT_SHAPE.nLayer - 1}.ffn_down.weight`);
        const attnK = info.tensorInfo?.find((t) => t.name === "blk.0.attn_k.weight");
        const headDim = TINY_CHAT_SHAPE.nEmbd / TINY_CHAT_SHAPE.nHead;
        expect(attnK?.dimensions).toEqual([TINY_CHAT_SHAPE.nEmbd, headDim * TINY_CHAT_SHAPE.nHeadKv]);
        for (const t of info.tensorInfo ?? []) expect(Number(t.offset) % 32).toBe(0);

        const bert = await readGgufFileInfo(await buildTinyEmbeddingModel(dir));
        expect(bert.metadata.general.architecture).toBe("bert");
        expect(bert.metadata.tokenizer.ggml.model).toBe("bert");
    });

    it("writes Q8_0 tensors as 34-byte blocks of 32 values (the bench's shaped model)", async () => {
        const file = path.join(dir, "q8.gguf");
        const blocks = (64 * 3) / Q8_0_BLOCK_VALUES;
        await writeFileAtomic(file, encodeGguf({
            metadata: {"general.architecture": str("llama")},
            tensors: [
                {name: "q8", shape: [64, 3], type: "q8_0", data: new Uint8Array(blocks * Q8_0_BLOCK_BYTES)},
                {name: "f32", shape: [5], data: new Float32Array(5)}
            ]
        }));
        const [q8, f32] = (await readGgufFileInfo(file, {readTensorInfo: true})).tensorInfo ?? [];
        expect([q8?.ggmlType, q8?.dimensions.map(Number)]).toEqual([GgmlType.Q8_0, [64, 3]]);
        expect(f32?.ggmlType).toBe(GgmlType.F32);
        // The next tensor starts after the blocks (204 bytes), aligned to 32.
        expect(Number(f32?.offset)).toBe(224);
        // Q8_0 rows hold whole blocks, and the bytes must match the shape.
        const q8Tensor = (shape: number[], bytes: number) => encodeGguf({metadata: {}, tensors: [{name: "q8", shape, type: "q8_0", data: new Uint8Array(bytes)}]});
        expect(() => q8Tensor([48, 2], 3 * Q8_0_BLOCK_BYTES)).toThrow(/Q8_0 bytes/);
        expect(() => q8Tensor([64, 3], blocks * Q8_0_BLOCK_BYTES - 1)).toThrow(/Q8_0 bytes/);
    });

    it("builds qwen2-style llama tensors in Q8_0 with the F32 tensors' scale", () => {
        const shape = {nVocab: 100, nEmbd: 64, nLayer: 1, nHead: 4, nHeadKv: 2, nFf: 128};
        const tensors = llamaTensors(shape, 1, {q8_0: true, qkvBias: true, tiedOutput: true});
        const byName = new Map(tensors.map((t) => [t.name, t]));
        expect(byName.has("output.weight")).toBe(false);
        expect(byName.get("blk.0.attn_k.bias")?.shape).toEqual([32]);
        const ffnDown = byName.get("blk.0.ffn_down.weight")!;
        expect("type" in ffnDown && ffnDown.type).toBe("q8_0");
        // The first block's f16 scale: 1/sqrt(fan-in) spread over int8's 127 steps.
        const half = ffnDown.data[0]! | (ffnDown.data[1]! << 8);
        const scale = 2 ** ((half >> 10) - 15) * (1 + (half & 0x3ff) / 1024);
        expect(scale).toBeCloseTo(1 / Math.sqrt(128) / 127, 6);
        expect(llamaTensors(shape, 1).every((t) => !("type" in t))).toBe(true);
    });
});

describe("tiny models in node-llama-cpp", () => {
    let llama: Llama;
    let chat: LlamaModel;
    let fim: LlamaModel;
    let tools: LlamaModel;
    let embedding: LlamaModel;

    beforeAll(async () => {
        llama = await getLlama({gpu: false, build: "never", maxThreads: THREADS, logLevel: LlamaLogLevel.error});
        // One model at a time: loading in parallel only competes for the same two cores.
        chat = await llama.loadModel({modelPath: await buildTinyChatModel()});
        fim = await llama.loadModel({modelPath: await buildTinyChatModel(undefined, {fim: true})});
        tools = await llama.loadModel({modelPath: await buildTinyChatModel(undefined, {tools: true})});
        embedding = await llama.loadModel({modelPath: await buildTinyEmbeddingModel()});
    }, 2 * TIMEOUT);

    afterAll(async () => {
        for (const model of [chat, fim, tools, embedding]) await model?.dispose();
        await llama?.dispose();
    });

    it("resolves the plain template to ChatML and the tools template to Jinja with tool calls", () => {
        expect(resolveChatWrapper(chat)).toBeInstanceOf(ChatMLChatWrapper);

        const wrapper = resolveChatWrapper(tools);
        // A llama-architecture model cannot get QwenChatWrapper (it checks the architecture), so
        // node-llama-cpp keeps the Jinja template and extracts the tool-call syntax from it.
        expect(wrapper).toBeInstanceOf(JinjaTemplateChatWrapper);
        expect(JSON.stringify(wrapper.settings.functions.call.prefix)).toContain("<tool_call>");
        const {contextText} = wrapper.generateContextState({
            chatHistory: [
                {type: "user", text: "Weather in Paris?"},
                {type: "model", response: [{type: "functionCall", name: "get_weather", params: {city: "Paris"}, result: {temp: 20}}]}
            ],
            availableFunctions: {get_weather: {description: "Get the weather", params: {type: "object", properties: {city: {type: "string"}}}}}
        });
        const text = contextText.toString();
        expect(text).toContain("<tools>\n{\"type\": \"function\"");
        expect(text).toContain("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>");
        expect(text).toContain("<tool_response>\n{\"temp\": 20}\n</tool_response>");
    }, TIMEOUT);

    it("tokenizes with its own vocab, byte fallback included", () => {
        for (const text of ["Hello world, the cat.", "héllo 👋"])
            expect(chat.detokenize(chat.tokenize(text))).toBe(text);
        expect(chat.tokenize("Hello world, the cat.")).toHaveLength(6); // whole-word pieces
        expect(chat.tokenize("👋")).toHaveLength(5); // "▁" + four UTF-8 byte tokens
        expect(chat.tokenize("<|im_start|>", true)).toHaveLength(1);
        expect(chat.tokens.bosString).toBe("<s>");
        expect(chat.tokens.eosString).toBe("<|im_end|>");
    });

    it("generates the same tokens twice at temperature 0", async () => {
        const context = await chat.createContext({contextSize: 512, threads: THREADS});
        try {
            const sequence = context.getSequence();
            const prompt = chat.tokenize("<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n", true);
            const generate = async () => {
                const out: Token[] = [];
                for await (const token of sequence.evaluate(prompt, {temperature: 0})) {
                    out.push(token);
                    if (out.length === 8 || token === chat.tokens.eos) break;
                }
                await sequence.clearHistory();
                return out;
            };
            const first = await generate();
            expect(first.length).toBeGreaterThan(0);
            expect(await generate()).toEqual(first);
        } finally {
            await context.dispose();
        }
    }, TIMEOUT);

    it("exposes FIM tokens only on the FIM model", () => {
        expect(fim.tokens.infill.prefixString).toBe("<|fim_prefix|>");
        expect(fim.tokens.infill.suffixString).toBe("<|fim_suffix|>");
        expect(fim.tokens.infill.middleString).toBe("<|fim_middle|>");
        expect(chat.tokens.infill.prefix).toBeNull();
    });

    it("embeds text with mean pooling", async () => {
        const context = await embedding.createEmbeddingContext({contextSize: 512, threads: THREADS});
        try {
            const a = await context.getEmbeddingFor("hello world");
            expect(a.vector).toHaveLength(64);
            expect(a.vector.every(Number.isFinite)).toBe(true);
            expect((await context.getEmbeddingFor("hello world")).vector).toEqual(a.vector);
            expect((await context.getEmbeddingFor("the cat sat")).vector).not.toEqual(a.vector);
        } finally {
            await context.dispose();
        }
    }, TIMEOUT);
});
