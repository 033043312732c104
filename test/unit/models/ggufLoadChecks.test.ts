import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {inspectGguf, inspectProjector} from "../../../src/models/ggufInspection.js";
import {UnloadableModelError} from "../../../src/models/ggufLoadChecks.js";
import {ModelCatalogue} from "../../../src/models/modelCatalogue.js";
import {createLogger} from "../../../src/logger.js";
import {duplicateTokenModelFile, malformedProjectorBytes, tinyModelWith} from "../../fixtures/gguf/brokenModels.js";
import {encodeGguf, i32Arr, strArr, u32, type GgufFile} from "../../fixtures/gguf/ggufWriter.js";
import {tinyChatModelFile} from "../../fixtures/gguf/tinyModels.js";
import {mlpProjectorFile} from "../../fixtures/gguf/visionProjectors.js";

// Files whose contents reach a GGML_ASSERT in llama.cpp's load (which aborts the whole server) are
// refused from their header, with the reason, before llama.cpp sees them.

let dir: string;
beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-loadchecks-"));
});
afterAll(async () => {
    await fs.rm(dir, {recursive: true, force: true});
});

async function write(name: string, file: GgufFile | Buffer): Promise<string> {
    const target = path.join(dir, name);
    await fs.writeFile(target, Buffer.isBuffer(file) ? file : encodeGguf(file));
    return target;
}

const withMetadata = (file: GgufFile, metadata: GgufFile["metadata"]): GgufFile => ({...file, metadata: {...file.metadata, ...metadata}});
const tokensOf = (file: GgufFile) => [...file.metadata["tokenizer.ggml.tokens"]!.value as readonly string[]];

describe("the load checks of a model's header", () => {
    it("passes the tiny chat model", async () => {
        await expect(inspectGguf(await write("good.gguf", tinyChatModelFile()))).resolves.toMatchObject({architecture: "llama"});
    });

    it("refuses a vocabulary that lists a token twice (llama-vocab.cpp's id_to_token/token_to_id assert), naming it and both ids", async () => {
        const file = duplicateTokenModelFile({copyFrom: 100, copyTo: 101});
        const token = tokensOf(file)[100]!;
        const inspecting = inspectGguf(await write("dup.gguf", file));
        await expect(inspecting).rejects.toBeInstanceOf(UnloadableModelError);
        await expect(inspecting).rejects.toThrow(`lists the token ${JSON.stringify(token)} twice (ids 100 and 101)`);
    });

    it("refuses an empty token that llama.cpp would rename to one the vocabulary already has", async () => {
        const base = tinyChatModelFile();
        const tokens = tokensOf(base);
        tokens[5] = "";
        tokens[6] = "[EMPTY_5]";
        await expect(inspectGguf(await write("empty.gguf", {...base, metadata: {...base.metadata, "tokenizer.ggml.tokens": strArr(tokens)}})))
            .rejects.toThrow(`lists the token "[EMPTY_5]" twice (ids 5 and 6)`);
    });

    it.each([
        ["no layers", {"llama.block_count": u32(0)}, "block_count is 0"],
        ["600 layers", {"llama.block_count": u32(600)}, "block_count is 600"],
        ["more next-token layers than layers", {"llama.nextn_predict_layers": u32(3)}, "nextn_predict_layers (3) exceeds its block_count (2)"],
        ["more experts used than there are", {"llama.expert_count": u32(4), "llama.expert_used_count": u32(8)}, "expert_used_count 8 is over expert_count 4"],
        ["experts used per layer, one too many", {"llama.expert_count": u32(4), "llama.expert_used_count": i32Arr([2, 5])}, "expert_used_count 5 is over expert_count 4"],
        ["experts, none used", {"llama.expert_count": u32(4)}, "expert_count is 4 but expert_used_count is 0"],
        ["2,000 experts", {"llama.expert_count": u32(2000), "llama.expert_used_count": u32(2)}, "expert_count 2000 is over 1024"],
        ["no attention heads", {"llama.attention.head_count": u32(0)}, "its attention.head_count is 0"],
        ["no KV heads", {"llama.attention.head_count_kv": u32(0)}, "its attention.head_count_kv is 0"],
        ["no feed-forward width", {"llama.feed_forward_length": u32(0)}, "its feed_forward_length is 0"],
        ["a layer without a feed-forward width", {"llama.feed_forward_length": i32Arr([128, 0])}, "its feed_forward_length is 0 for a layer"],
        ["groups without experts", {"llama.expert_group_count": u32(2)}, "expert_group_count 2 without experts"],
        ["uneven expert groups", {"llama.expert_count": u32(8), "llama.expert_used_count": u32(2), "llama.expert_group_count": u32(3), "llama.expert_group_used_count": u32(1)}, "expert_count 8 in 3 groups"]
    ])("refuses %s (llama-model.cpp's load_hparams asserts, llama-model-loader.cpp's on a weight of size 0)", async (_case, metadata, reason) => {
        await expect(inspectGguf(await write("hparams.gguf", tinyModelWith(metadata)))).rejects.toThrow(reason);
    });

    it("lists such a file as one llama.cpp cannot load, with the reason, next to a good one", async () => {
        const folder = await fs.mkdtemp(path.join(dir, "folder-"));
        await fs.writeFile(path.join(folder, "good.gguf"), encodeGguf(tinyChatModelFile()));
        await fs.writeFile(path.join(folder, "dup.gguf"), encodeGguf(duplicateTokenModelFile()));
        const catalogue = new ModelCatalogue(folder, createLogger("silent"));
        await catalogue.refresh();
        expect(catalogue.find("good")!.error).toBeUndefined();
        expect(catalogue.find("dup")!.error).toMatch(/^llama\.cpp cannot load it: its vocabulary lists the token .* twice \(ids 100 and 101\)/);
    });
});

describe("a projector's header", () => {
    it("refuses at once the 124-byte projector that was parsed for ever", async () => {
        await expect(inspectProjector(await write("mmproj-bad.gguf", malformedProjectorBytes())))
            .rejects.toThrow("claims 1099511627776 metadata entries and 0 tensors, more than a file of 124 bytes can hold");
    });

    it("refuses a model that is not a projector, and passes a real one", async () => {
        await expect(inspectProjector(await write("mmproj-model.gguf", tinyChatModelFile()))).rejects.toThrow("its general.architecture is 'llama', not 'clip'");
        const projector = mlpProjectorFile({imageSize: 32, patchSize: 8, nEmbd: 32, nFf: 64, nHead: 2, nLayer: 2}, 64);
        await expect(inspectProjector(await write("mmproj-good.gguf", projector))).resolves.toBeUndefined();
    });

    // Each of these aborted (or crashed) the process in mtmd's load, tried on this very projector.
    it.each([
        ["an image_size of 0 (ggml_conv_2d's assert)", (file: GgufFile) => withMetadata(file, {"clip.vision.image_size": u32(0)}), "its image_size (0) is smaller than its patch_size (8)"],
        ["a head count of 0 (a reshape's assert)", (file: GgufFile) => withMetadata(file, {"clip.vision.attention.head_count": u32(0)}), "its embedding_length (32) does not split into its head_count (0) heads"],
        ["an MLP without mm.2 (SIGSEGV)", (file: GgufFile) => ({...file, tensors: file.tensors.filter((tensor) => !tensor.name.startsWith("mm.2"))}), "its MLP projection lacks mm.2.weight"]
    ])("refuses a projector with %s", async (_case, change, reason) => {
        const projector = change(mlpProjectorFile({imageSize: 32, patchSize: 8, nEmbd: 32, nFf: 64, nHead: 2, nLayer: 2}, 64));
        await expect(inspectProjector(await write("mmproj-broken.gguf", projector))).rejects.toThrow(reason);
    });

    it("leaves the model listed, with the projector's reason beside it", async () => {
        const folder = await fs.mkdtemp(path.join(dir, "vision-"));
        await fs.writeFile(path.join(folder, "llava.gguf"), encodeGguf(tinyChatModelFile()));
        await fs.writeFile(path.join(folder, "mmproj-llava.gguf"), malformedProjectorBytes());
        const catalogue = new ModelCatalogue(folder, createLogger("silent"));
        await catalogue.refresh();
        const llava = catalogue.find("llava")!;
        expect(llava.error).toBeUndefined();
        expect(llava.projectorError).toMatch(/^its projector mmproj-llava\.gguf cannot be loaded: the GGUF header claims 1099511627776 metadata entries/);
    });
});
