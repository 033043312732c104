import {describe, expect, it} from "vitest";
import {loraAdapterRefusal} from "../../../src/engine/loraAdapters.js";
import {parseSettingsFile} from "../../../src/models/modelSettings.js";
import {buildLoraAdapter} from "../../fixtures/gguf/loraAdapter.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";

describe("loraAdapterRefusal (from the adapter's header, before llama.cpp sees it)", () => {
    it("lets an adapter for the model's architecture load", async () => {
        expect(await loraAdapterRefusal(await buildLoraAdapter(), "llama")).toBeNull();
    });

    it("names both architectures when they differ, and says what else the file is", async () => {
        expect(await loraAdapterRefusal(await buildLoraAdapter(undefined, {architecture: "qwen2"}), "llama"))
            .toMatch(/made for the 'qwen2' architecture, and this model is 'llama'/);
        expect(await loraAdapterRefusal(await buildTinyChatModel(), "llama")).toMatch(/is not a LoRA adapter \(its general.type is missing/);
        expect(await loraAdapterRefusal("/no/such/adapter.gguf", "llama")).toMatch(/cannot be read as a GGUF file/);
    });
});

describe("chatserve.json's lora", () => {
    it("is a list of paths with optional scales, per model or pattern", () => {
        const table = parseSettingsFile(JSON.stringify({models: {"qwen*": {lora: [{path: "a.gguf"}, {path: "b.gguf", scale: 0.5}]}}}));
        expect(table.settingsFor("qwen-7b").lora).toEqual([{path: "a.gguf"}, {path: "b.gguf", scale: 0.5}]);
        expect(() => parseSettingsFile(JSON.stringify({models: {m: {lora: [{path: "a.gguf", scale: 20}]}}}))).toThrow(/lora/);
        expect(() => parseSettingsFile(JSON.stringify({models: {m: {lora: [{file: "a.gguf"}]}}}))).toThrow(/lora/);
    });
});
