import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import {afterEach, beforeEach, describe, expect, it} from "vitest";
import {encodeEntry, entryBytes, makeEntry} from "../../../../src/engine/promptCache/cacheEntry.js";
import {DiskTier} from "../../../../src/engine/promptCache/diskTier.js";
import {modelLayout, type ModelLayoutSettings} from "../../../../src/engine/promptCache/modelLayout.js";
import {PromptCache} from "../../../../src/engine/promptCache/promptCache.js";
import {RamTier} from "../../../../src/engine/promptCache/ramTier.js";

/** What each tier holds per model layout: the `prompt_cache` of a model's /v1/models entry. */
const conversation = (id: number, length: number) => Int32Array.from({length}, (_, index) => id * 100_000 + index);
const entryOf = (layout: string, id: number, length = 600, stateBytes = 1000) => makeEntry(layout, "", conversation(id, length), Buffer.alloc(stateBytes, id));
const silent = pino({level: "silent"});
const settingsOf = (file: string): ModelLayoutSettings => ({
    model: {path: file, bytes: 1000, modifiedMs: 1}, contextSize: 4096, flashAttention: "auto", llamaCpp: "test", gpu: false
});

describe("the prompt cache's usage per layout", () => {
    let dir: string;
    beforeEach(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-cache-usage-"));
    });
    afterEach(async () => {
        await fs.rm(dir, {recursive: true, force: true});
    });

    it("RAM: counts each layout's own entries and bytes, and follows evictions", () => {
        const first = entryOf("layout-a", 1);
        const tier = new RamTier(entryBytes(first) * 3);
        tier.add(first);
        tier.add(entryOf("layout-a", 2));
        tier.add(entryOf("layout-b", 3));
        expect(tier.usage("layout-a")).toEqual({bytes: entryBytes(first) * 2, entries: 2});
        expect(tier.usage("layout-b")).toEqual({bytes: entryBytes(first), entries: 1});
        expect(tier.usage("layout-c")).toEqual({bytes: 0, entries: 0});
        // A fourth entry pushes out the least recently used (layout-a's first).
        tier.add(entryOf("layout-b", 4));
        expect(tier.usage("layout-a")).toEqual({bytes: entryBytes(first), entries: 1});
        expect(tier.usage("layout-b").entries).toBe(2);
    });

    it("disk: counts the files of an opened layout by their sizes, none of a layout not opened", async () => {
        const folder = path.join(dir, "layout-b");
        await fs.mkdir(folder, {recursive: true});
        const earlier = encodeEntry(entryOf("layout-b", 5));
        await fs.writeFile(path.join(folder, "earlier.kvcache"), earlier);
        const tier = new DiskTier(dir, 1e9, silent);
        await tier.open("layout-a", {});
        await tier.write(entryOf("layout-a", 1));
        await tier.write(entryOf("layout-a", 2, 700));
        const written = (await fs.readdir(path.join(dir, "layout-a"))).filter((name) => name.endsWith(".kvcache"));
        const sizes = await Promise.all(written.map(async (name) => (await fs.stat(path.join(dir, "layout-a", name))).size));
        expect(tier.usage("layout-a")).toEqual({bytes: sizes.reduce((sum, size) => sum + size, 0), entries: 2});
        // layout-b's file is on disk, but no model of that layout has loaded: the tier has not looked.
        expect(tier.usage("layout-b")).toEqual({bytes: 0, entries: 0});
        await tier.open("layout-b", {});
        expect(tier.usage("layout-b")).toEqual({bytes: earlier.length, entries: 1});
    });

    it("by model path: the layout of its last load, both tiers; nothing known of a model never loaded", async () => {
        const cache = new PromptCache({ramBytes: 1e6, disk: {dir, bytes: 1e9}}, silent);
        expect(cache.usageFor("/models/a.gguf")).toBeUndefined();
        const settings = settingsOf("/real/a.gguf");
        await cache.forModel(settings, "/models/a.gguf");
        await cache.forModel(settingsOf("/real/b.gguf"), "/models/b.gguf");
        const layout = modelLayout(settings).key;
        const entry = entryOf(layout, 1);
        cache.ram.add(entry);
        await cache.disk!.write(entry);
        const usage = cache.usageFor("/models/a.gguf");
        expect(usage?.ram).toEqual({bytes: entryBytes(entry), entries: 1});
        expect(usage?.disk.entries).toBe(1);
        expect(usage!.disk.bytes).toBeGreaterThan(entry.state.length);
        expect(cache.usageFor("/models/b.gguf")).toEqual({ram: {bytes: 0, entries: 0}, disk: {bytes: 0, entries: 0}});
        // Without a disk tier its side is zero, not absent.
        const ramOnly = new PromptCache({ramBytes: 1e6, disk: null}, silent);
        await ramOnly.forModel(settings);
        expect(ramOnly.usageFor("/real/a.gguf")?.disk).toEqual({bytes: 0, entries: 0});
    });
});
