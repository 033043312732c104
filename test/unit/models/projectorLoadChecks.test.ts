import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {inspectProjector} from "../../../src/models/ggufInspection.js";
import {loadableProjectorCases, projectorAbortCases} from "../../fixtures/gguf/abortCases.js";
import {encodeGguf, type GgufFile} from "../../fixtures/gguf/ggufWriter.js";

// Projectors (LLaVA's MLP, Gemma 3's, Qwen2-VL's merger, and the types whose load_hparams() asserts
// on their own metadata) that abort or crash llama.cpp as they load or encode an image, and ones
// alike that it loads and encodes with: abortCases.ts lists both, and scripts/checkAborts/run.ts
// confirms each in a child process with chatserve's projector code and two images.

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

describe("a projector llama.cpp aborts on", () => {
    it.each(projectorAbortCases.map((c) => [c.name, c] as const))("refuses %s", async (_name, {file, reason}) => {
        await expect(inspect(file())).rejects.toThrow(reason);
    });
});

describe("a projector llama.cpp loads and encodes with", () => {
    it.each(loadableProjectorCases.map((c) => [c.name, c] as const))("passes %s", async (_name, {file}) => {
        await expect(inspect(file())).resolves.toBeUndefined();
    });
});
