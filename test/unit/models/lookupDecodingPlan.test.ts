import {describe, expect, it} from "vitest";
import {sameLoadSettings} from "../../../src/models/contextPlan.js";
import type {ModelDescriptor} from "../../../src/models/modelDescriptor.js";
import {parseSettingsFile, SettingsTable} from "../../../src/models/modelSettings.js";
import {ModelSizing} from "../../../src/models/modelSizing.js";

function model(id: string, capabilities: ModelDescriptor["capabilities"]): ModelDescriptor {
    return {
        id, path: `/models/${id}.gguf`, files: [`/models/${id}.gguf`], sizeBytes: 1024, modifiedAt: 0, architecture: "llama", trainedContextLength: 4096, capabilities,
        memory: () => ({ram: 1024, vram: 0}), kvCache: () => 1024
    };
}

describe("chatserve.json's lookup_decoding", () => {
    it("is a boolean per model, and absent unless given", () => {
        const table = parseSettingsFile(JSON.stringify({models: {"qwen*": {lookup_decoding: false}, "qwen-coder": {lookup_decoding: true}}}));
        expect(table.settingsFor("qwen-chat").lookupDecoding).toBe(false);
        expect(table.settingsFor("qwen-coder").lookupDecoding).toBe(true);
        expect(table.settingsFor("llama").lookupDecoding).toBeUndefined();
        expect(() => parseSettingsFile(JSON.stringify({models: {m: {lookup_decoding: "yes"}}}))).toThrow(/models\.m\.lookup_decoding/);
    });

    it("goes into a chat model's plan, over the flag, and a change reloads the model", () => {
        const chat = model("chat", ["chat"]);
        const embedder = model("embedder", ["embeddings"]);
        const sizing = new ModelSizing({ctxSize: 2048, parallel: 1}, () => [chat, embedder]);
        expect(sizing.planFor(chat).lookupDecoding).toBeUndefined();
        sizing.useSettings({table: new SettingsTable({chat: {lookup_decoding: false}, embedder: {lookup_decoding: true}}), templates: new Map()});
        expect(sizing.planFor(chat).lookupDecoding).toBe(false);
        // An embedding model generates nothing to draft.
        expect(sizing.planFor(embedder).lookupDecoding).toBeUndefined();

        const plan = {contextLength: 2048, parallel: 1, kvCacheBytes: null};
        expect(sameLoadSettings({...plan, lookupDecoding: false}, {...plan, lookupDecoding: false})).toBe(true);
        expect(sameLoadSettings(plan, {...plan, lookupDecoding: false})).toBe(false);
    });
});
