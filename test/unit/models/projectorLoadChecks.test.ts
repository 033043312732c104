import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {inspectProjector} from "../../../src/models/ggufInspection.js";
import {bool, encodeGguf, f32, i32Arr, str, u32, type GgufFile, type GgufMetadata} from "../../fixtures/gguf/ggufWriter.js";
import {gemma3ProjectorFile, mlpProjectorFile, qwen2vlProjectorFile} from "../../fixtures/gguf/visionProjectors.js";

// Projectors of other types than LLaVA's MLP, and projector metadata that does not fit its weights:
// each file refused here aborted (or crashed) a child process that loaded it with chatserve's
// projector code and encoded two images; each file passed here loaded and encoded them.

let dir: string;
beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-projector-"));
});
afterAll(async () => {
    await fs.rm(dir, {recursive: true, force: true});
});

async function inspect(file: GgufFile): Promise<void> {
    const target = path.join(dir, "mmproj-test.gguf");
    await fs.writeFile(target, encodeGguf(file));
    return inspectProjector(target);
}

const vit = {imageSize: 32, patchSize: 8, nEmbd: 32, nFf: 64, nHead: 2, nLayer: 2};
const withMetadata = (file: GgufFile, metadata: GgufMetadata): GgufFile => ({...file, metadata: {...file.metadata, ...metadata}});
const mlp = (metadata: GgufMetadata = {}) => withMetadata(mlpProjectorFile(vit, 64), metadata);
const gemma3 = (metadata: GgufMetadata = {}) => withMetadata(gemma3ProjectorFile({...vit, imageSize: 64}, 64, 4), metadata);
const qwen2vl = (metadata: GgufMetadata = {}) => withMetadata(qwen2vlProjectorFile({...vit, imageSize: 64}, 64), metadata);
/** An audio-only projector of `type`: mtmd loads its tower even though chatserve serves no audio. */
const audio = (type: string, metadata: GgufMetadata) => mlp({
    "clip.has_vision_encoder": bool(false), "clip.has_audio_encoder": bool(true), "clip.projector_type": str(type),
    "clip.audio.embedding_length": u32(32), "clip.audio.feed_forward_length": u32(64), "clip.audio.block_count": u32(2),
    "clip.audio.attention.head_count": u32(2), "clip.audio.attention.layer_norm_epsilon": f32(1e-5), "clip.audio.projection_dim": u32(64),
    "clip.audio.num_mel_bins": u32(80), ...metadata
});

describe("a projector's shapes", () => {
    it.each([
        ["an MLP whose image_size gives more patches than it has positions (get_rows)", mlp({"clip.vision.image_size": u32(40)}), "its image_size (40) makes 26 patch positions but it holds 17"],
        ["an MLP whose patch_size is not its convolution's (a reshape)", mlp({"clip.vision.patch_size": u32(4), "clip.vision.image_size": u32(16)}), "its patch convolution is 8×8 but its patch_size is 4"],
        ["a Gemma 3 image_size of 0 (ggml_conv_2d)", gemma3({"clip.vision.image_size": u32(0)}), "its image_size (0) is smaller than its patch_size (8)"],
        ["a Gemma 3 image_size off its positions (ggml_add)", gemma3({"clip.vision.image_size": u32(60)}), "its image_size (60) makes 49 patch positions but it holds 64"],
        ["a Gemma 3 pool that does not divide its grid (at the first image)", gemma3({"clip.vision.projector.scale_factor": u32(3)}), "its 8×8 patch grid does not pool evenly by its scale_factor (3)"],
        ["a Gemma 3 pool wider than its grid", gemma3({"clip.vision.projector.scale_factor": u32(16)}), "does not pool evenly by its scale_factor (16)"],
        ["a Gemma 3 ViT whose width does not split into its heads", gemma3({"clip.vision.attention.head_count": u32(3)}), "its embedding_length (32) does not split into its head_count (3) heads"],
        ["a Qwen2-VL merge size of 3 (qwen2vl.cpp's assert at the first image)", qwen2vl({"clip.vision.spatial_merge_size": u32(3)}), "spatial_merge_size is 3, not the 2 its merger is built for"],
        ["a Qwen2-VL merge size of 1 (a corrupted heap)", qwen2vl({"clip.vision.spatial_merge_size": u32(1)}), "spatial_merge_size is 1"],
        ["a Qwen2-VL patch_size that is not its convolution's", qwen2vl({"clip.vision.patch_size": u32(7)}), "its patch convolution is 8×8 but its patch_size is 7"]
    ])("refuses %s", async (_case, file, reason) => {
        await expect(inspect(file)).rejects.toThrow(reason);
    });

    it.each([
        ["the tiny LLaVA projector", mlp()],
        ["the tiny Gemma 3 projector", gemma3()],
        ["Gemma 3 pooling by 1 (every patch a token)", gemma3({"clip.vision.projector.scale_factor": u32(1)})],
        ["the tiny Qwen2-VL projector", qwen2vl()],
        ["Qwen2-VL with an image_size of 0 (its resolution is the image's)", qwen2vl({"clip.vision.image_size": u32(0)})],
        ["Qwen2-VL with 8 heads of 4", qwen2vl({"clip.vision.attention.head_count": u32(8)})]
    ])("passes %s", async (_case, file) => {
        await expect(inspect(file)).resolves.toBeUndefined();
    });
});

describe("what one projector type's metadata reaches in clip.cpp's load_hparams()", () => {
    it.each([
        ["internvl: more tiles at least than at most", mlp({"clip.projector_type": str("internvl"), "clip.vision.preproc_min_tiles": u32(8), "clip.vision.preproc_max_tiles": u32(2)}),
            "its internvl projector's preproc_min_tiles (8) is over its preproc_max_tiles (2)"],
        ["internvl: a least over the default most of 12", mlp({"clip.projector_type": str("internvl"), "clip.vision.preproc_min_tiles": u32(13)}), "preproc_min_tiles (13) is over its preproc_max_tiles (12)"],
        ["minicpmv4_6: a merge of 3", mlp({"clip.projector_type": str("minicpmv4_6"), "clip.vision.projector.scale_factor": u32(3)}), "its minicpmv4_6 projector's scale_factor is 3, not 2 or 4"],
        ["deepseekocr: 300 tiles", mlp({
            "clip.projector_type": str("deepseekocr"), "clip.vision.sam.head_count": u32(2), "clip.vision.sam.block_count": u32(1),
            "clip.vision.sam.embedding_length": u32(32), "clip.vision.window_size": u32(4), "clip.vision.preproc_max_tiles": u32(300)
        }), "its deepseekocr projector's tiles (2 to 300) are not within 0 to 256"],
        ["minimax_m3: a merge of 0", mlp({"clip.projector_type": str("minimax_m3"), "clip.vision.spatial_merge_size": u32(0)}), "its minimax_m3 projector's spatial_merge_size is 0"],
        ["mimovl: a window pattern longer than the tower", mlp({
            "clip.projector_type": str("mimovl"), "clip.vision.attention.head_count_kv": u32(2), "clip.vision.window_size": u32(4),
            "clip.vision.wa_pattern_mode": i32Arr([0, 0, 0]), "clip.vision.image_min_pixels": u32(64), "clip.vision.image_max_pixels": u32(4096)
        }), "its mimovl projector's wa_pattern_mode has 3 entries for 2 layers"],
        ["parakeet audio: a subsampling factor of 4", audio("parakeet", {"clip.audio.subsampling_factor": u32(4), "clip.audio.conv_kernel_size": u32(9)}),
            "its parakeet audio projector's subsampling_factor is 4, not 8"],
        ["parakeet audio: an even kernel", audio("parakeet", {"clip.audio.subsampling_factor": u32(8), "clip.audio.conv_kernel_size": u32(8)}), "conv_kernel_size is 8, not a positive odd number"],
        ["granite_speech audio: chunks of 0", audio("granite_speech", {
            "clip.audio.chunk_size": u32(0), "clip.audio.conv_kernel_size": u32(15), "clip.audio.max_pos_emb": u32(512),
            "clip.audio.projector.window_size": u32(15), "clip.audio.projector.downsample_rate": u32(5)
        }), "its granite_speech audio projector's chunk_size is 0, not 1 to 8192"]
    ])("refuses %s", async (_case, file, reason) => {
        await expect(inspect(file)).rejects.toThrow(reason);
    });
});
