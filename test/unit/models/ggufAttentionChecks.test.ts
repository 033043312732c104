import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {inspectGguf} from "../../../src/models/ggufInspection.js";
import {attentionProblem} from "../../../src/models/ggufAttentionChecks.js";
import {UnloadableModelError} from "../../../src/models/ggufLoadChecks.js";
import type {HeaderValue} from "../../../src/models/ggufBounds.js";
import {attentionSizesModelFile, tinyModelWith, tinyQwen2VlWith, wavTokenizerFile} from "../../fixtures/gguf/brokenModels.js";
import {encodeGguf, i32Arr, str, u32, type GgufFile} from "../../fixtures/gguf/ggufWriter.js";

// Attention sizes and rotary settings that llama.cpp aborts the process on, at load or as the
// loaded model's first context builds its graph. Each file here was tried in a child process: the
// refused ones aborted it (GGML_ASSERT), the passed ones loaded and answered.

let dir: string;
beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-attention-"));
});
afterAll(async () => {
    await fs.rm(dir, {recursive: true, force: true});
});

async function inspect(file: GgufFile) {
    const target = path.join(dir, "model.gguf");
    await fs.writeFile(target, encodeGguf(file));
    return inspectGguf(target);
}

describe("files llama.cpp aborts on", () => {
    it.each([
        ["a rope.scaling.type llama.cpp does not know (load_hparams)", tinyModelWith({"llama.rope.scaling.type": str("dynamic")}),
            `its rope.scaling.type "dynamic" is none of none, linear, yarn, longrope`],
        ["4 heads over 3 KV heads (ggml_can_mul_mat)", attentionSizesModelFile({kvHeads: 3}), "its 4 attention heads do not share its 3 KV heads evenly"],
        ["value heads narrower than key heads (llama's graph)", attentionSizesModelFile({valueSize: 8}), "its key heads (16) and value heads (8) differ in size"],
        ["heads of 21, rotated (rope's n_dims % 2)", attentionSizesModelFile({heads: 3, kvHeads: 3, keySize: 21}), "its rotary dimensions (21) are odd"],
        ["a rotation narrower than the head (qwen2vl's graph)", tinyQwen2VlWith({"qwen2vl.rope.dimension_count": u32(8)}), "its rope.dimension_count (8) is not its head size (16)"],
        ["M-RoPE sections of 0 (rope's sections assert)", tinyQwen2VlWith({"qwen2vl.rope.dimension_sections": i32Arr([0, 0, 0, 0])}), "its rope.dimension_sections are missing or 0"],
        ["M-RoPE sections wider than the head (rope's sect_dims)", tinyQwen2VlWith({"qwen2vl.rope.dimension_sections": i32Arr([8, 8, 1, 0])}), "add up to 17, more than its head size (16)"],
        ["a WavTokenizer with more posnet layers than layers", wavTokenizerFile({posnetLayers: 6, convnextLayers: 1}), "its posnet.block_count (6) exceeds its block_count (1)"],
        ["a WavTokenizer with more convnext layers than layers", wavTokenizerFile({posnetLayers: 1, convnextLayers: 3}), "its convnext.block_count (3) exceeds its block_count (1)"]
    ])("refuses %s", async (_case, file, reason) => {
        const inspecting = inspect(file);
        await expect(inspecting).rejects.toBeInstanceOf(UnloadableModelError);
        await expect(inspecting).rejects.toThrow(reason);
    });
});

describe("files llama.cpp loads", () => {
    it.each([
        ["the tiny chat model's sizes, given explicitly", attentionSizesModelFile({})],
        ["the tiny Qwen2-VL model (M-RoPE sections 2, 3, 3, 0)", tinyQwen2VlWith({})],
        ["M-RoPE sections short of the head", tinyQwen2VlWith({"qwen2vl.rope.dimension_sections": i32Arr([3, 3, 3, 0])})],
        ["a known rope.scaling.type", tinyModelWith({"llama.rope.scaling.type": str("yarn")})],
        ["a WavTokenizer whose layer counts fit", wavTokenizerFile({posnetLayers: 1, convnextLayers: 1})]
    ])("passes %s", async (_case, file) => {
        await expect(inspect(file)).resolves.toMatchObject({architecture: expect.any(String)});
    });

    // Real models' shapes (from their headers), which the checks must leave alone.
    const header = (values: Record<string, HeaderValue>) => (name: string) => values[name];
    it.each([
        ["falcon-7b: 71 heads over 1 KV head", "falcon", {"embedding_length": 4544, "attention.head_count": 71, "attention.head_count_kv": 1}],
        ["gpt-neox-20b: a quarter of each head rotated", "gptneox", {"embedding_length": 6144, "attention.head_count": 64, "rope.dimension_count": 24}],
        ["gemma 4: KV heads per layer, heads of 512", "gemma4", {
            "embedding_length": 2816, "attention.head_count": 16, "attention.head_count_kv": [8, 8, 8, 8, 8, 2],
            "attention.key_length": 512, "attention.value_length": 512, "rope.dimension_count": 512
        }],
        ["deepseek-v2: keys wider than values (MLA), 64 of 192 rotated", "deepseek2", {
            "embedding_length": 5120, "attention.head_count": 128, "attention.head_count_kv": 128,
            "attention.key_length": 192, "attention.value_length": 128, "rope.dimension_count": 64
        }],
        ["phi-2: 32 of 80 rotated", "phi2", {"embedding_length": 2560, "attention.head_count": 32, "rope.dimension_count": 32}],
        ["a BERT with heads of 25 (BERT does not rotate)", "bert", {"embedding_length": 100, "attention.head_count": 4}],
        ["Mamba: no attention", "mamba", {"embedding_length": 768, "attention.head_count": 0}],
        ["GLM-4 without M-RoPE sections: plain RoPE", "glm4", {"embedding_length": 4096, "attention.head_count": 32, "rope.dimension_sections": [0, 0, 0, 0]}]
    ])("passes %s", (_case, architecture, values) => {
        expect(attentionProblem(architecture, header(values))).toBeUndefined();
    });
});
