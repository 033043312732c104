import {mkdtempSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import path from "node:path";
import {pino} from "pino";
import {describe, expect, it} from "vitest";
import {sameLoadSettings} from "../../../src/models/contextPlan.js";
import type {ModelDescriptor} from "../../../src/models/modelDescriptor.js";
import {parseSettingsFile, SettingsTable} from "../../../src/models/modelSettings.js";
import {SettingsFile, settingsForModel} from "../../../src/models/settingsFile.js";
import {ModelSizing} from "../../../src/models/modelSizing.js";

const MiB = 1024 * 1024;
const folder = mkdtempSync(path.join(tmpdir(), "chatserve-draft-"));
const file = (name: string, bytes: number) => {
    const at = path.join(folder, name);
    writeFileSync(at, Buffer.alloc(bytes));
    return at;
};
const bigFile = file("big.gguf", 10);
const smallFile = file("small.gguf", 10);
const otherFile = file("other.gguf", 3 * MiB);

/** A chat model whose estimate is `ram` bytes plus a KV cache of 1 KiB per token per sequence. */
function chatModel(id: string, at: string, ram: number): ModelDescriptor {
    return {
        id, path: at, files: [at], sizeBytes: ram, modifiedAt: 0, architecture: "llama", trainedContextLength: 4096, capabilities: ["chat"],
        memory: (context, sequences) => ({ram: ram + context * sequences * 1024, vram: 0}), kvCache: (context, sequences) => context * sequences * 1024
    };
}
const big = chatModel("big", bigFile, 1024 * MiB);
const small = chatModel("small", smallFile, 64 * MiB);
const embedder: ModelDescriptor = {...chatModel("embedder", file("embedder.gguf", 10), 32 * MiB), capabilities: ["embeddings"]};

describe("a model's draft in its plan and its memory", () => {
    it("gives --draft-model to every chat model but itself, and counts the draft's weights and its context of the target's shape", () => {
        const sizing = new ModelSizing({ctxSize: 2048, parallel: 2, draftModel: smallFile}, () => [big, small]);
        expect(sizing.planFor(big)).toMatchObject({draft: {path: smallFile}, draftBytes: 64 * MiB + 2048 * 2 * 1024});
        expect(sizing.estimateFor(big).ram).toBe(1024 * MiB + 2048 * 2 * 1024 + 64 * MiB + 2048 * 2 * 1024);
        // The draft itself drafts for nothing, and an embedding model generates nothing to draft.
        expect(sizing.planFor(small).draft).toBeUndefined();
        expect(sizing.planFor(embedder).draft).toBeUndefined();
    });

    it("takes chatserve.json's draft and draft_tokens over the flag, and counts a draft the folder does not list at its file's size", () => {
        const sizing = new ModelSizing({ctxSize: 2048, parallel: 1, draftModel: smallFile}, () => [big, small]);
        sizing.useSettings({table: new SettingsTable({big: {draft: otherFile, draft_tokens: 5}}), templates: new Map()});
        expect(sizing.planFor(big)).toMatchObject({draft: {path: otherFile, tokens: 5}, draftBytes: 3 * MiB});
        expect(sizing.planFor(small).draft).toBeUndefined();
    });

    it("reloads a model whose draft changed", () => {
        const plan = {contextLength: 2048, parallel: 1, kvCacheBytes: null};
        expect(sameLoadSettings({...plan, draft: {path: smallFile}}, {...plan, draft: {path: smallFile}})).toBe(true);
        expect(sameLoadSettings({...plan, draft: {path: smallFile}}, {...plan, draft: {path: smallFile, tokens: 4}})).toBe(false);
        expect(sameLoadSettings(plan, {...plan, draft: {path: smallFile}})).toBe(false);
    });
});

describe("chatserve.json's draft", () => {
    it("takes a file in the models folder and 1 to 16 draft tokens", async () => {
        expect(parseSettingsFile(JSON.stringify({models: {m: {draft: "small.gguf", draft_tokens: 16}}})).settingsFor("m")).toMatchObject({draft: "small.gguf", draftTokens: 16});
        expect(() => parseSettingsFile(JSON.stringify({models: {m: {draft_tokens: 0}}}))).toThrow(/models\.m\.draft_tokens/);
        expect(() => parseSettingsFile(JSON.stringify({models: {m: {draft_tokens: 17}}}))).toThrow(/models\.m\.draft_tokens/);

        writeFileSync(path.join(folder, "chatserve.json"), JSON.stringify({models: {big: {draft: "small.gguf"}}}));
        const settings = new SettingsFile(folder, pino({level: "silent"}));
        expect(await settings.reload(() => {})).toBe(true);
        expect(settingsForModel(settings.current, "big").draft).toBe(smallFile);
        writeFileSync(path.join(folder, "chatserve.json"), JSON.stringify({models: {big: {draft: "missing.gguf"}}}));
        await settings.reload(() => {});
        expect(settings.error).toMatch(/models\.big\.draft: missing\.gguf does not exist/);
        const outside = path.join(mkdtempSync(path.join(tmpdir(), "chatserve-elsewhere-")), "outside.gguf");
        writeFileSync(outside, "x");
        writeFileSync(path.join(folder, "chatserve.json"), JSON.stringify({models: {big: {draft: outside}}}));
        await settings.reload(() => {});
        expect(settings.error).toMatch(/models\.big\.draft: .*lies outside the models folder/);
    });
});
