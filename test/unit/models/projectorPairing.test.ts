import path from "node:path";
import {describe, expect, it} from "vitest";
import {pairProjector} from "../../../src/models/projectorPairing.js";

const root = "/models";
const at = (...parts: string[]) => path.join(root, ...parts);

describe("pairing a vision projector with its model", () => {
    it("pairs by name: mmproj-<model>, with or without the projector's own precision", () => {
        const projectors = [at("mmproj-Qwen2.5-VL-3B-Instruct-f16.gguf"), at("mmproj-gemma-3-4b-it.gguf")];
        expect(pairProjector(at("Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf"), projectors, root)).toBe(projectors[0]);
        expect(pairProjector(at("gemma-3-4b-it-Q8_0.gguf"), projectors, root)).toBe(projectors[1]);
        expect(pairProjector(at("llama-3.2-1b.gguf"), projectors, root)).toBeUndefined();
    });

    it("takes the longest name that fits, and only where a word ends", () => {
        const projectors = [at("mmproj-qwen.gguf"), at("mmproj-qwen2-vl.gguf"), at("mmproj-m.gguf")];
        expect(pairProjector(at("qwen2-vl-7b.gguf"), projectors, root)).toBe(projectors[1]);
        expect(pairProjector(at("qwen-7b.gguf"), projectors, root)).toBe(projectors[0]);
        expect(pairProjector(at("m2.gguf"), projectors, root)).toBeUndefined();
        expect(pairProjector(at("m.gguf"), projectors, root)).toBe(projectors[2]);
    });

    it("gives a subfolder's only projector to every model there, never the top folder's", () => {
        expect(pairProjector(at("gemma", "gemma-3-4b-it-Q4_K_M.gguf"), [at("gemma", "mmproj-F16.gguf")], root)).toBe(at("gemma", "mmproj-F16.gguf"));
        expect(pairProjector(at("gemma-3-4b-it-Q4_K_M.gguf"), [at("mmproj-F16.gguf")], root)).toBeUndefined();
        expect(pairProjector(at("a", "model.gguf"), [at("a", "mmproj-F16.gguf"), at("a", "mmproj-BF16.gguf")], root)).toBeUndefined();
        expect(pairProjector(at("a", "model.gguf"), [at("b", "mmproj-F16.gguf")], root)).toBeUndefined();
    });
});
