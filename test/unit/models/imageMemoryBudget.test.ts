import {mkdtempSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {imageDecodeBytes, keptImages, tokenizedImageSize} from "../../../src/engine/vision/imageMemory.js";
import type {ModelDescriptor} from "../../../src/models/modelDescriptor.js";
import {ModelSizing} from "../../../src/models/modelSizing.js";

const MiB = 1024 * 1024;

/** A chat model whose estimate is 1 GiB of RAM, with a 3-byte projector file beside it (or none). */
function descriptor(projector?: string): ModelDescriptor {
    return {
        id: "vision-model", path: "/models/vision-model.gguf", files: [], sizeBytes: 1024 * MiB, modifiedAt: 0, architecture: "llama",
        trainedContextLength: 4096, capabilities: ["chat"], memory: () => ({ram: 1024 * MiB, vram: 0}),
        ...(projector == null ? {} : {projector})
    };
}

describe("the memory budget's count of a model with a projector", () => {
    it("counts the projector's file and the bytes its cache of images may keep", () => {
        const projector = path.join(mkdtempSync(path.join(tmpdir(), "chatserve-mmproj-")), "mmproj.gguf");
        writeFileSync(projector, "abc");
        const sizing = new ModelSizing({ctxSize: 4096, parallel: 1, vision: true});
        expect(sizing.estimateFor(descriptor(projector)).ram).toBe(1024 * MiB + 3 + keptImages.bytes);
        expect(keptImages.bytes).toBeGreaterThan(0);
    });

    it("counts the decodes the server may run at once, each at the largest image it accepts", () => {
        const projector = path.join(mkdtempSync(path.join(tmpdir(), "chatserve-mmproj-")), "mmproj.gguf");
        writeFileSync(projector, "abc");
        const decodes = imageDecodeBytes(8192 * 4096, 2);
        const sizing = new ModelSizing({ctxSize: 4096, parallel: 1, vision: true, imageDecodeBytes: decodes});
        expect(sizing.estimateFor(descriptor(projector)).ram).toBe(1024 * MiB + 3 + keptImages.bytes + decodes);
        // Three RGB copies of each of two 8192x4096 images.
        expect(decodes).toBe(2 * 8192 * 4096 * 9);
    });

    it("counts nothing for images where the model has no projector", () => {
        const sizing = new ModelSizing({ctxSize: 4096, parallel: 1, vision: true, imageDecodeBytes: imageDecodeBytes(8192 * 4096, 1)});
        expect(sizing.estimateFor(descriptor()).ram).toBe(1024 * MiB);
    });
});

describe("what a tokenized image is counted at", () => {
    it("counts its embeddings and its input pixels as floats, text parts nothing", () => {
        // LLaVA 1.5 7B's shapes: 576 embeddings of 4,096 floats, 14-pixel patches, 576 of them.
        const image = {handle: null, parts: [
            {type: "text" as const, tokens: Uint32Array.of(1, 2)},
            {type: "image" as const, index: 1, tokens: 576, positions: 576, nonCausal: false, id: "x"}
        ]};
        const bytes = tokenizedImageSize(image, {embedding: 4096, patch: 14, patches: 576});
        expect(bytes).toBe(576 * 4096 * 4 + 4 * 576 * 14 * 14 * 3 * 4);
        // Eight such images fit the cache's bound.
        expect(8 * bytes).toBeLessThanOrEqual(keptImages.bytes);
    });
});
