// The tiny vision fixtures: each pair is small, named so a folder scan pairs it, and carries what
// llama.cpp's mtmd checks at load (projector type, an output width equal to the text model's n_embd).
import {mkdtemp, rm, stat} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {readGgufFileInfo} from "node-llama-cpp";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {findModelFiles} from "../../src/models/modelFiles.js";
import {TINY_CHAT_SHAPE} from "../fixtures/gguf/tinyModels.js";
import {buildTinyGemma3VisionModel, buildTinyLlavaModel, buildTinyQwen2VlModel, type VisionPair} from "../fixtures/gguf/visionModels.js";

let dir: string;
beforeAll(async () => { dir = await mkdtemp(path.join(os.tmpdir(), "vision-fixtures-")); });
afterAll(async () => { await rm(dir, {recursive: true, force: true}); });

async function read(file: string) {
    const info = await readGgufFileInfo(file, {readTensorInfo: true});
    const tensors = new Map(info.fullTensorInfo!.map((t) => [t.name, t.dimensions.map(Number)]));
    return {metadata: info.metadata as unknown as Record<string, any>, tensors};
}

async function expectSmall(pair: VisionPair): Promise<void> {
    expect((await stat(pair.model)).size).toBeLessThan(1_000_000);
    expect((await stat(pair.mmproj)).size).toBeLessThan(300_000);
}

describe("vision fixtures", () => {
    it("LLaVA: the tiny chat model with an MLP projector whose output width is its n_embd", async () => {
        const pair = await buildTinyLlavaModel(dir);
        expect(pair).toEqual({model: path.join(dir, "tiny-llava.gguf"), mmproj: path.join(dir, "mmproj-tiny-llava.gguf")});
        await expectSmall(pair);
        const {metadata, tensors} = await read(pair.mmproj);
        expect(metadata.general.architecture).toBe("clip");
        expect(metadata.clip.projector_type).toBe("mlp");
        expect(metadata.clip.vision.image_mean).toHaveLength(3);
        expect(tensors.get("mm.2.weight")![1]).toBe(TINY_CHAT_SHAPE.nEmbd); // mtmd's clip_n_mmproj_embd()
        expect((await read(pair.model)).metadata.general.architecture).toBe("llama");
    });

    it("Gemma 3: a non-causal projector, and the image delimiters as control tokens", async () => {
        const pair = await buildTinyGemma3VisionModel(dir);
        await expectSmall(pair);
        const projector = await read(pair.mmproj);
        expect(projector.metadata.clip.projector_type).toBe("gemma3");
        expect(projector.tensors.get("mm.input_projection.weight")![0]).toBe(TINY_CHAT_SHAPE.nEmbd);
        const {metadata} = await read(pair.model);
        const tokens: string[] = metadata.tokenizer.ggml.tokens;
        for (const delimiter of ["<start_of_image>", "<end_of_image>"])
            expect(metadata.tokenizer.ggml.token_type[tokens.indexOf(delimiter)]).toBe(3); // control
    });

    it("Qwen2-VL: a qwen2vl text model with M-RoPE sections, and a merger projector", async () => {
        const pair = await buildTinyQwen2VlModel(dir);
        await expectSmall(pair);
        const projector = await read(pair.mmproj);
        expect(projector.metadata.clip.projector_type).toBe("qwen2vl_merger");
        expect(projector.tensors.get("mm.2.bias")).toEqual([TINY_CHAT_SHAPE.nEmbd]);
        expect(projector.tensors.has("v.patch_embd.weight.1")).toBe(true);
        const {metadata, tensors} = await read(pair.model);
        expect(metadata.general.architecture).toBe("qwen2vl");
        expect(metadata.qwen2vl.embedding_length).toBe(TINY_CHAT_SHAPE.nEmbd);
        // The sections cover half of each head's rotary dimensions.
        const sections: number[] = metadata.qwen2vl.rope.dimension_sections;
        expect(sections.reduce((a, b) => a + b, 0)).toBe(metadata.qwen2vl.rope.dimension_count / 2);
        expect(tensors.has("blk.0.attn_q.bias")).toBe(true);
        expect(metadata.tokenizer.ggml.tokens).toEqual(expect.arrayContaining(["<|vision_start|>", "<|vision_end|>"]));
    });

    it("a subfolder pair is one model to the folder scan, its projector a companion", async () => {
        const models = path.join(dir, "scan");
        const pair = await buildTinyQwen2VlModel(models, {subfolder: true});
        expect(path.dirname(pair.model)).toBe(path.join(models, "tiny-qwen2vl"));
        await buildTinyLlavaModel(models);
        const found = await findModelFiles(models);
        expect(found.map((m) => m.id).sort()).toEqual(["tiny-llava", "tiny-qwen2vl"]);
    });

    it("building again leaves an unchanged file alone", async () => {
        const pair = await buildTinyLlavaModel(dir);
        const before = (await stat(pair.mmproj)).mtimeMs;
        await buildTinyLlavaModel(dir);
        expect((await stat(pair.mmproj)).mtimeMs).toBe(before);
    });
});
