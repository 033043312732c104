// The tiny LoRA adapters the fixtures build (test/fixtures/gguf/loraAdapter.ts), read by llama.cpp
// itself through node-llama-cpp: it applies one to the tiny chat model (a greedy reply changes; at
// scale 0 it is the base model's), and refuses one written for another architecture with its own
// reason. The adapters chatserve.json gives a model rest on it (test/e2e/models/loraAdapters.test.ts).
import {getLlama, type Llama, type LlamaModel, type Token} from "node-llama-cpp";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildLoraAdapter} from "../../fixtures/gguf/loraAdapter.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";

let llama: Llama;
let model: LlamaModel;
const errors: string[] = [];

beforeAll(async () => {
    llama = await getLlama({gpu: false, build: "never", logger: (level, message) => {
        if (level === "error")
            errors.push(message);
    }});
    model = await llama.loadModel({modelPath: await buildTinyChatModel()});
});
afterAll(async () => model?.dispose());

/** 12 greedy tokens after a fixed prompt, on a context with these adapters. */
async function greedy(adapters: Array<{filePath: string, scale: number}>): Promise<Token[]> {
    const context = await model.createContext({contextSize: 256, threads: 1, ...(adapters.length > 0 ? {lora: {adapters}} : {})});
    try {
        const sequence = context.getSequence();
        const tokens: Token[] = [];
        for await (const token of sequence.evaluate(model.tokenize("Once upon a time"), {temperature: 0})) {
            tokens.push(token);
            if (tokens.length >= 12)
                break;
        }
        return tokens;
    } finally {
        await context.dispose();
    }
}

describe("the tiny LoRA adapter fixture", () => {
    it("is applied by llama.cpp: it changes a greedy reply, and at scale 0 leaves the base model's", async () => {
        const adapter = await buildLoraAdapter();
        const base = await greedy([]);
        expect(await greedy([{filePath: adapter, scale: 1}])).not.toEqual(base);
        expect(await greedy([{filePath: adapter, scale: 0}])).toEqual(base);
    });

    it("written for another architecture, is refused by llama.cpp with its reason", async () => {
        const foreign = await buildLoraAdapter(undefined, {architecture: "qwen2"});
        await expect(greedy([{filePath: foreign, scale: 1}])).rejects.toThrow();
        await new Promise((resolve) => setImmediate(resolve));
        expect(errors.join("\n")).toMatch(/model arch and LoRA arch mismatch/);
    });
});
