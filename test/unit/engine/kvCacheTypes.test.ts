import {getLlama, readGgufFileInfo, type Llama} from "node-llama-cpp";
import {beforeAll, describe, expect, it} from "vitest";
import {bytesPerElement, kvCacheTypeNames, kvCacheTypeRefusal} from "../../../src/engine/kvCacheTypes.js";
import {kvCacheEstimate} from "../../../src/models/kvCacheEstimate.js";
import {planContext} from "../../../src/models/contextPlan.js";
import {resolveConfig} from "../../../src/config.js";
import {parseSettingsFile} from "../../../src/models/modelSettings.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";

describe("KV-cache types", () => {
    it("count ggml's bytes per element: a block's bytes over its values", () => {
        expect(kvCacheTypeNames.map((type) => [type, bytesPerElement(type)])).toEqual([
            ["f16", 2], ["f32", 4], ["bf16", 2], ["q8_0", 34 / 32], ["q4_0", 18 / 32], ["q4_1", 20 / 32], ["iq4_nl", 18 / 32], ["q5_0", 22 / 32], ["q5_1", 24 / 32]
        ]);
    });

    it("refuse what llama.cpp would refuse to create, saying why", () => {
        expect(kvCacheTypeRefusal({k: "q8_0", v: "q8_0"}, {flashAttention: "off"})).toMatch(/flash attention/);
        expect(kvCacheTypeRefusal({k: "q8_0", v: "f16"}, {flashAttention: "off", headWidths: {k: 64, v: 64}})).toBeNull();
        expect(kvCacheTypeRefusal({k: "q8_0", v: "q8_0"}, {flashAttention: "auto", headWidths: {k: 64, v: 64}})).toBeNull();
        expect(kvCacheTypeRefusal({k: "q4_0", v: "f16"}, {flashAttention: "on", headWidths: {k: 16, v: 16}})).toMatch(/16 wide.*--cache-type-k/);
        expect(kvCacheTypeRefusal({k: "f16", v: "q5_1"}, {flashAttention: "on", headWidths: {k: 16, v: 48}})).toMatch(/48 wide.*--cache-type-v/);
    });

    it("are read from the flags' config and chatserve.json, a quantized V cache with flash attention off refused at start", () => {
        expect(resolveConfig({})).toMatchObject({cacheTypeK: "f16", cacheTypeV: "f16"});
        expect(resolveConfig({cacheTypeK: "q8_0", cacheTypeV: "q4_0"})).toMatchObject({cacheTypeK: "q8_0", cacheTypeV: "q4_0"});
        expect(() => resolveConfig({cacheTypeV: "q8_0", flashAttention: "off"})).toThrow(/--cache-type-v q8_0 needs flash attention/);
        expect(() => resolveConfig({cacheTypeK: "q8_0", flashAttention: "off"})).not.toThrow();
        expect(() => resolveConfig({cacheTypeK: "q3_k" as never})).toThrow();
        const table = parseSettingsFile(JSON.stringify({models: {"*": {cache_type_k: "q8_0"}, m: {cache_type_v: "q4_0"}}}));
        expect(table.settingsFor("m")).toMatchObject({cacheTypeK: "q8_0", cacheTypeV: "q4_0"});
        expect(() => parseSettingsFile(JSON.stringify({models: {m: {cache_type_v: "q8"}}}))).toThrow(/cache_type_v/);
    });
});

describe("the KV-cache estimate with a type", () => {
    let llama: Llama;
    beforeAll(async () => { llama = await getLlama({gpu: false, build: "never"}); });

    it("scales the keys and the values apart, from node-llama-cpp's f16 and f32 figures", async () => {
        const info = await readGgufFileInfo(await buildTinyChatModel(), {readTensorInfo: true});
        const estimate = (await kvCacheEstimate(info, llama))!;
        const f16 = estimate(4096, 2);
        expect(estimate(4096, 2, {k: "f16", v: "f16"})).toBe(f16);
        expect(estimate(4096, 2, {k: "f32", v: "f32"})).toBe(2 * f16);
        expect(estimate(4096, 2, {k: "q8_0", v: "q8_0"})).toBe(Math.ceil(f16 * 34 / 64));
        // Keys and values are the same size in a llama: a q4_0 key half and an f16 value half.
        expect(estimate(4096, 2, {k: "q4_0", v: "f16"})).toBe(Math.ceil(f16 / 2 * 18 / 64 + f16 / 2));
    });

    it("sizes the default context to the chosen type: a q8_0 cache holds about twice the tokens in the same memory", () => {
        const perToken = 128 * 1024;
        const model = {trainedContextLength: 131072, sizeBytes: 4 * 2 ** 30, capabilities: ["chat" as const],
            kvCache: (contextSize: number, sequences: number, types?: {k: string, v: string}) =>
                contextSize * sequences * perToken * (types?.k === "q8_0" ? 34 / 64 : 1)};
        const f16 = planContext(model, {freeMemoryBytes: 8 * 2 ** 30, parallel: 1});
        const q8 = planContext(model, {freeMemoryBytes: 8 * 2 ** 30, parallel: 1, kvCacheTypes: {k: "q8_0", v: "q8_0"}});
        expect(f16).toMatchObject({contextLength: 16384});
        expect(f16.kvCacheTypes).toBeUndefined();
        expect(q8).toMatchObject({contextLength: 30720, kvCacheTypes: {k: "q8_0", v: "q8_0"}});
        expect(q8.kvCacheBytes).toBe(30720 * perToken * 34 / 64);
    });
});

describe("a model's own cache types (chatserve.json)", () => {
    it("win over the flags' field by field, and its memory estimate counts them", async () => {
        const {ModelSizing} = await import("../../../src/models/modelSizing.js");
        const {SettingsTable} = await import("../../../src/models/modelSettings.js");
        const perToken = 1024;
        const descriptor = {
            id: "m", path: "/m.gguf", files: ["/m.gguf"], sizeBytes: 1000, modifiedAt: 0, architecture: "llama", trainedContextLength: 4096, capabilities: ["chat" as const],
            kvCache: (contextSize: number, sequences: number, types?: {k: string, v: string}) =>
                contextSize * sequences * perToken / 2 * ((types?.k === "q4_0" ? 18 / 64 : 1) + (types?.v === "q8_0" ? 34 / 64 : 1)),
            memory: (contextSize: number, sequences: number) => ({ram: 1000 + contextSize * sequences * perToken, vram: 0})
        };
        const sizing = new ModelSizing({ctxSize: 4096, parallel: 1, kvCacheTypes: {k: "q4_0", v: "f16"}});
        sizing.useSettings({table: new SettingsTable({m: {cache_type_v: "q8_0"}}), templates: new Map()});
        const plan = sizing.planFor(descriptor);
        expect(plan.kvCacheTypes).toEqual({k: "q4_0", v: "q8_0"});
        const cache = 4096 * perToken / 2 * (18 / 64 + 34 / 64);
        expect(plan.kvCacheBytes).toBe(cache);
        expect(sizing.estimateFor(descriptor)).toEqual({ram: 1000 + cache, vram: 0});
    });
});

describe("llama-server's short flags", () => {
    it("-ctk and -ctv are read as --cache-type-k and --cache-type-v (commander's short flags are one letter)", async () => {
        const {llamaServerSpelling} = await import("../../../src/cli/main.js");
        expect(["-ctk", "q8_0", "-ctv", "q4_0", "-c", "4096"].map(llamaServerSpelling)).toEqual(["--cache-type-k", "q8_0", "--cache-type-v", "q4_0", "-c", "4096"]);
    });
});
