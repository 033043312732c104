import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {inspectGguf} from "../../../src/models/ggufInspection.js";
import {attentionProblem} from "../../../src/models/ggufAttentionChecks.js";
import {UnloadableModelError} from "../../../src/models/ggufLoadChecks.js";
import type {HeaderValue} from "../../../src/models/ggufBounds.js";
import {loadableModelCases, modelAbortCases} from "../../fixtures/gguf/abortCases.js";
import {wavTokenizerFile} from "../../fixtures/gguf/brokenModels.js";
import {encodeGguf, type GgufFile} from "../../fixtures/gguf/ggufWriter.js";

// Model files llama.cpp aborts the process on (at load, as the loaded model's first context builds
// its graph, or at a request's tokenizing), and files alike that it loads: abortCases.ts lists both,
// and scripts/checkAborts/run.ts confirms each in a child process. Then attention shapes of real
// models, which the checks must leave alone.

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
    it.each(modelAbortCases.map((c) => [c.name, c] as const))("refuses %s", async (_name, {file, reason}) => {
        const inspecting = inspect(file());
        await expect(inspecting).rejects.toBeInstanceOf(UnloadableModelError);
        await expect(inspecting).rejects.toThrow(reason);
    });
});

describe("files llama.cpp loads", () => {
    it.each(loadableModelCases.map((c) => [c.name, c] as const))("passes %s", async (_name, {file}) => {
        await expect(inspect(file())).resolves.toMatchObject({architecture: expect.any(String)});
    });

    it("refuses a WavTokenizer whose layer counts fit for having no tokenizer, which chatserve could not serve", async () => {
        await expect(inspect(wavTokenizerFile({posnetLayers: 1, convnextLayers: 1}))).rejects.toThrow(`it has no tokenizer (tokenizer.ggml.model is "none")`);
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
        ["OLMo 2 (its graph's heads are its width over its head count)", "olmo2", {"embedding_length": 4096, "attention.head_count": 32, "attention.head_count_kv": 32}],
        ["EXAONE 4 (its graph's heads are its key heads)", "exaone4", {
            "embedding_length": 5120, "attention.head_count": 40, "attention.head_count_kv": 8, "attention.key_length": 128, "attention.value_length": 128
        }],
        ["GLM-4 without M-RoPE sections: plain RoPE", "glm4", {"embedding_length": 4096, "attention.head_count": 32, "rope.dimension_sections": [0, 0, 0, 0]}]
    ])("passes %s", (_case, architecture, values) => {
        expect(attentionProblem(architecture, header(values))).toBeUndefined();
    });
});
