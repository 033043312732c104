import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import {afterEach, beforeEach, describe, expect, it} from "vitest";
import {chainedBlockHashes} from "../../../../src/engine/promptCache/blockHashes.js";
import {encodeEntry, entryBytes, makeEntry, seedOf} from "../../../../src/engine/promptCache/cacheEntry.js";
import {DiskTier} from "../../../../src/engine/promptCache/diskTier.js";

const conversation = (id: number, length: number) => Int32Array.from({length}, (_, index) => id * 100_000 + index);
const entryOf = (tokens: Int32Array, layout = "layout-a", partition = "") => makeEntry(layout, partition, tokens, Buffer.alloc(2000, tokens[0]! % 251));
const hashes = (prompt: Int32Array, layout = "layout-a", partition = "") => chainedBlockHashes(seedOf(layout, partition), prompt);

/** Warnings the tier logs, as objects. */
function recordingLogger(): {logger: pino.Logger, warnings: Array<Record<string, unknown>>} {
    const warnings: Array<Record<string, unknown>> = [];
    const logger = pino({level: "warn"}, {write: (line: string) => warnings.push(JSON.parse(line) as Record<string, unknown>)});
    return {logger, warnings};
}

describe("the disk tier", () => {
    let dir: string;
    beforeEach(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-disk-tier-"));
    });
    afterEach(async () => {
        await fs.rm(dir, {recursive: true, force: true});
    });

    it("finds a prefix written by an earlier process from the files' headers, and reads it back whole", async () => {
        const {logger} = recordingLogger();
        const writer = new DiskTier(dir, 1e9, logger);
        await writer.open("layout-a", {});
        await writer.write(entryOf(conversation(1, 700)));
        const reader = new DiskTier(dir, 1e9, logger);
        await reader.open("layout-a", {});
        const prompt = Int32Array.from([...conversation(1, 520), 3, 3]);
        const found = reader.find(hashes(prompt), prompt);
        expect(found?.length).toBe(520);
        const entry = await reader.read(found!.record);
        expect(Array.from(entry!.tokens)).toEqual(Array.from(conversation(1, 700)));
        // Another layout (model file, context, KV types) and another partition find nothing.
        await reader.open("layout-b", {});
        expect(reader.find(hashes(conversation(1, 700), "layout-b"), conversation(1, 700))).toBeUndefined();
        expect(reader.find(hashes(conversation(1, 700), "layout-a", "key-b"), conversation(1, 700))).toBeUndefined();
        expect((await fs.readdir(path.join(dir, "layout-a"))).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
    });

    it("skips, removes and warns of a truncated, corrupt or foreign file", async () => {
        const folder = path.join(dir, "layout-a");
        await fs.mkdir(folder, {recursive: true});
        const good = encodeEntry(entryOf(conversation(1, 300)));
        await fs.writeFile(path.join(folder, "truncated-header.kvcache"), good.subarray(0, 30));
        await fs.writeFile(path.join(folder, "foreign.kvcache"), encodeEntry(entryOf(conversation(2, 300), "layout-z")));
        await fs.writeFile(path.join(folder, "junk.kvcache"), Buffer.from("not a cache file at all"));
        const truncatedState = encodeEntry(entryOf(conversation(3, 300)));
        await fs.writeFile(path.join(folder, "truncated-state.kvcache"), truncatedState.subarray(0, truncatedState.length - 100));
        const {logger, warnings} = recordingLogger();
        const tier = new DiskTier(dir, 1e9, logger);
        await tier.open("layout-a", {});
        // The file whose state is cut short has a whole header: indexed, then refused when read.
        const found = tier.find(hashes(conversation(3, 300)), conversation(3, 300));
        expect(found).toBeDefined();
        expect(await tier.read(found!.record)).toBeUndefined();
        expect(tier.find(hashes(conversation(3, 300)), conversation(3, 300))).toBeUndefined();
        expect((await fs.readdir(folder)).filter((name) => name.endsWith(".kvcache"))).toEqual([]);
        expect(warnings.map((warning) => warning.event)).toEqual(Array(4).fill("prompt_cache_file_skipped"));
    });

    it("tells apart entries sharing a prompt's whole blocks by the tokens after them", async () => {
        const tier = new DiskTier(dir, 1e9, recordingLogger().logger);
        await tier.open("layout-a", {});
        const shared = conversation(1, 256);
        await tier.write(entryOf(Int32Array.from([...shared, 7, 7, 7, 7])));
        await tier.write(entryOf(Int32Array.from([...shared, 8, 8, 8, 8])));
        const prompt = Int32Array.from([...shared, 7, 7, 7, 9]);
        expect(tier.find(hashes(prompt), prompt)?.length).toBe(259);
        // Two files, though both end in the same whole block and are as long.
        expect(tier.count).toBe(2);
        const reader = new DiskTier(dir, 1e9, recordingLogger().logger);
        await reader.open("layout-a", {});
        const other = Int32Array.from([...shared, 8, 8, 8, 0]);
        expect(reader.find(hashes(other), other)?.length).toBe(259);
    });

    it("lets two servers share the folder: concurrent writes of the same and of other prefixes leave whole files only", async () => {
        const {logger, warnings} = recordingLogger();
        const [one, two] = [new DiskTier(dir, 1e9, logger), new DiskTier(dir, 1e9, logger)];
        await Promise.all([one.open("layout-a", {}), two.open("layout-a", {})]);
        await Promise.all([1, 2, 3].flatMap((id) => [one.write(entryOf(conversation(id, 600))), two.write(entryOf(conversation(id, 600)))]));
        const reader = new DiskTier(dir, 1e9, logger);
        await reader.open("layout-a", {});
        expect(reader.count).toBe(3);
        for (const id of [1, 2, 3])
            expect((await reader.read(reader.find(hashes(conversation(id, 600)), conversation(id, 600))!.record))?.tokens.length).toBe(600);
        expect(warnings).toEqual([]);
        expect((await fs.readdir(path.join(dir, "layout-a"))).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
    });

    it("keeps within its budget, least recently used out first", async () => {
        const size = encodeEntry(entryOf(conversation(1, 300))).length;
        const tier = new DiskTier(dir, size * 2 + 10, recordingLogger().logger);
        await tier.open("layout-a", {});
        await tier.write(entryOf(conversation(1, 300)));
        await tier.write(entryOf(conversation(2, 300)));
        await tier.read(tier.find(hashes(conversation(1, 300)), conversation(1, 300))!.record);
        await tier.write(entryOf(conversation(3, 300)));
        expect(tier.find(hashes(conversation(2, 300)), conversation(2, 300))).toBeUndefined();
        expect(tier.find(hashes(conversation(1, 300)), conversation(1, 300))).toBeDefined();
        expect(tier.find(hashes(conversation(3, 300)), conversation(3, 300))).toBeDefined();
        expect(tier.bytes).toBeLessThanOrEqual(size * 2 + 10);
        expect(entryBytes(entryOf(conversation(1, 300)))).toBeGreaterThan(0);
    });
});
