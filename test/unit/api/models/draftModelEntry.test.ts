import {afterEach, describe, expect, it, vi} from "vitest";
import {toModelObject} from "../../../../src/api/models/toModelObject.js";
import {printBanner} from "../../../../src/cli/banner.js";
import {psTable} from "../../../../src/cli/psCommand.js";
import {resolveConfig} from "../../../../src/config.js";
import type {ListedModel} from "../../../../src/models/listedModel.js";
import type {RunningServer} from "../../../../src/server.js";

const model: ListedModel = {
    id: "qwen", modifiedAt: 1_700_000_000, contextLength: 4096, parallel: 2, kvCacheBytes: 1000, contextMemoryBytes: 1500,
    capabilities: ["chat", "completion"], status: "loaded", waitingForMemory: false, unloading: false,
    memory: {ram: 700, vram: 0}, memoryMeasured: true, activeRequests: 0, keepAlive: null, expiresAtMs: null,
    architecture: "qwen2", sizeBytes: 500
};

describe("a model's draft model where models are shown", () => {
    afterEach(() => vi.restoreAllMocks());

    it("is in its /v1/models entry: the file, a fixed draft length, and why it is not used", () => {
        expect(toModelObject({...model, draft: {path: "/models/small.gguf", tokens: 4}}).draft).toEqual({path: "/models/small.gguf", draft_tokens: 4});
        expect(toModelObject({...model, draft: {path: "/models/small.gguf", error: "draft model /models/small.gguf not used: its BOS token differs"}}).draft)
            .toEqual({path: "/models/small.gguf", error: "draft model /models/small.gguf not used: its BOS token differs"});
        expect(toModelObject(model).draft).toBeUndefined();
    });

    it("is named beside its model in chatserve ps when it is used", () => {
        const entry = toModelObject({...model, draft: {path: "/models/small.gguf"}});
        expect(psTable([entry], "cpu", 0)).toMatch(/^qwen \(\+ draft small\.gguf\) /m);
        const refused = toModelObject({...model, draft: {path: "/models/small.gguf", error: "not used"}});
        expect(psTable([refused], "cpu", 0)).toMatch(/^qwen {2,}/m);
    });

    it("is named on its model's line of the banner", () => {
        let printed = "";
        vi.spyOn(process.stdout, "write").mockImplementation((text) => (printed += String(text), true));
        const server = {
            url: "http://127.0.0.1:8080/v1", backend: "CPU", openmp: true, threads: 2, decodeThreads: 2, vision: {available: true}, freeMemoryBytes: 1024 ** 3,
            memoryBudget: {bytes: 1024 ** 3, models: Number.POSITIVE_INFINITY, source: "--memory-limit"},
            registry: {list: () => [{...model, status: "available", draft: {path: "/models/small.gguf"}}]}
        };
        printBanner(resolveConfig({}), server as unknown as RunningServer);
        expect(printed).toMatch(/ {2}- qwen \(qwen2, chat, completion\): .*; draft model small\.gguf\n/);
    });
});
