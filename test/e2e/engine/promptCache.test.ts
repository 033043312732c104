import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../support/sharedModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/**
 * The prompt cache through a real server on the tiny chat model: a prefix that left its sequence (a
 * second conversation on a one-sequence model) or its process (a restart) comes back from RAM or
 * disk, and the reply at temperature 0 is the one a fresh evaluation gives, byte for byte. A model
 * file replaced on disk, and a cache file corrupted or cut short, never restore anything; two API
 * keys never restore each other's prompts.
 */
const agentA = "Agent A rules: read the files first, then plan, then act with care. ".repeat(24);
const agentB = "Agent B guidelines: be brief, and polite to every user you meet. ".repeat(24);

type Reply = {text: string, promptTokens: number, cachedTokens: number};

async function ask(server: TestServer, system: string, {key = "no-key", question = "What now?"} = {}): Promise<Reply> {
    const reply = await server.client(key).chat.completions.create({
        model: "tiny", temperature: 0, max_tokens: 16, messages: [{role: "system", content: system}, {role: "user", content: question}]
    });
    return {text: reply.choices[0]!.message.content ?? "", promptTokens: reply.usage!.prompt_tokens, cachedTokens: reply.usage!.prompt_tokens_details?.cached_tokens ?? 0};
}

async function metric(server: TestServer, name: string, tier: string): Promise<number> {
    const text = await (await fetch(server.url.replace(/\/v1$/, "/metrics"))).text();
    return Number(new RegExp(`^chatserve:${name}\\{tier="${tier}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
}

/** One sequence, so that a second conversation always takes the first one's. */
const settings = {parallel: 1, ctxSize: 2048};

describe("the prompt cache", () => {
    let work: string;
    let model: string;
    let otherModel: string;
    /** The replies a server without a prompt cache gives: fresh evaluation. */
    const fresh = new Map<string, string>();

    beforeAll(async () => {
        work = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-prompt-cache-"));
        model = await buildTinyChatModel();
        otherModel = await buildTinyChatModel(undefined, {seed: 2});
        for (const [name, file] of [["tiny", model], ["other", otherModel]] as const) {
            const server = await startTestServer({tiny: file}, {...settings, promptCache: false});
            try {
                for (const [agent, system] of [["A", agentA], ["B", agentB]] as const) {
                    const reply = await ask(server, system);
                    // At most the template's opening, which B shares with A's sequence.
                    expect(reply.cachedTokens).toBeLessThan(32);
                    fresh.set(`${name}${agent}`, reply.text);
                }
            } finally {
                await server.stop();
            }
        }
        // The two models answer differently: a state of one restored for the other would show.
        expect(fresh.get("tinyA")).not.toBe(fresh.get("otherA"));
    }, 120_000);

    afterAll(async () => {
        await fs.rm(work, {recursive: true, force: true});
    });

    it("restores a conversation from RAM after another took its sequence, replying as a fresh evaluation does", async () => {
        const server = await startTestServer({tiny: model}, settings);
        try {
            const first = await ask(server, agentA);
            expect(first.text).toBe(fresh.get("tinyA"));
            expect((await ask(server, agentB)).text).toBe(fresh.get("tinyB"));
            const again = await ask(server, agentA);
            expect(again.text).toBe(fresh.get("tinyA"));
            expect(again.cachedTokens).toBe(again.promptTokens - 1);
            expect(await metric(server, "prompt_cache_hits_total", "ram")).toBe(1);
            expect(await metric(server, "prompt_cache_restored_tokens_total", "ram")).toBe(again.promptTokens - 1);
            // Anthropic's usage counts it as read from the cache.
            const response = await fetch(`${server.url}/messages`, {
                method: "POST", headers: {"Content-Type": "application/json", "x-api-key": "no-key", "anthropic-version": "2023-06-01"},
                body: JSON.stringify({model: "tiny", max_tokens: 4, temperature: 0, system: agentB, messages: [{role: "user", content: "What now?"}]})
            });
            const message = await response.json() as {usage: {cache_read_input_tokens: number, input_tokens: number}};
            expect(response.status).toBe(200);
            expect(message.usage.cache_read_input_tokens).toBeGreaterThan(300);
        } finally {
            await server.stop();
        }
    }, 120_000);

    it("restores from disk after a restart, and never for a model file replaced at the same path", async () => {
        const file = path.join(work, "model.gguf");
        const cacheDir = path.join(work, "restart-cache");
        await fs.copyFile(model, file);
        const first = await startTestServer({tiny: file}, {...settings, promptCacheDir: cacheDir});
        expect((await ask(first, agentA)).text).toBe(fresh.get("tinyA"));
        await first.stop();

        const second = await startTestServer({tiny: file}, {...settings, promptCacheDir: cacheDir});
        try {
            const restored = await ask(second, agentA);
            expect(restored.text).toBe(fresh.get("tinyA"));
            expect(restored.cachedTokens).toBe(restored.promptTokens - 1);
            expect(await metric(second, "prompt_cache_hits_total", "disk")).toBe(1);
        } finally {
            await second.stop();
        }

        // Another model's weights at the same path (same architecture: its states would load without a complaint).
        await fs.copyFile(otherModel, file);
        const replaced = await startTestServer({tiny: file}, {...settings, promptCacheDir: cacheDir});
        try {
            const reply = await ask(replaced, agentA);
            expect(reply.cachedTokens).toBe(0);
            expect(reply.text).toBe(fresh.get("otherA"));
            expect(await metric(replaced, "prompt_cache_hits_total", "disk")).toBe(0);
        } finally {
            await replaced.stop();
        }
    }, 180_000);

    it("never restores a state saved under other KV cache types", async () => {
        const cacheDir = path.join(work, "kv-types");
        const f16 = await startTestServer({tiny: model}, {...settings, promptCacheDir: cacheDir});
        await ask(f16, agentA);
        await f16.stop();
        const f32 = await startTestServer({tiny: model}, {...settings, promptCacheDir: cacheDir, cacheTypeK: "f32", cacheTypeV: "f32"});
        try {
            expect((await ask(f32, agentA)).cachedTokens).toBe(0);
            expect(await metric(f32, "prompt_cache_hits_total", "disk")).toBe(0);
            // Its own states it does restore, after a restart under the same types.
            await ask(f32, agentB);
        } finally {
            await f32.stop();
        }
        const again = await startTestServer({tiny: model}, {...settings, promptCacheDir: cacheDir, cacheTypeK: "f32", cacheTypeV: "f32"});
        try {
            const reply = await ask(again, agentA);
            expect(reply.cachedTokens).toBe(reply.promptTokens - 1);
        } finally {
            await again.stop();
        }
    }, 180_000);

    it("skips and removes a corrupt or truncated cache file, replying as a fresh evaluation does", async () => {
        for (const damage of ["flip", "truncate"] as const) {
            const cacheDir = path.join(work, `damaged-${damage}`);
            const writer = await startTestServer({tiny: model}, {...settings, promptCacheDir: cacheDir});
            await ask(writer, agentA);
            await writer.stop();
            const files = await cacheFiles(cacheDir);
            expect(files.length).toBeGreaterThan(0);
            for (const cacheFile of files) {
                const bytes = await fs.readFile(cacheFile);
                if (damage === "flip")
                    bytes[Math.floor(bytes.length * 0.75)]! ^= 0xff;
                await fs.writeFile(cacheFile, damage === "flip" ? bytes : bytes.subarray(0, Math.floor(bytes.length * 0.6)));
            }

            const reader = await startTestServer({tiny: model}, {...settings, promptCacheDir: cacheDir});
            try {
                const reply = await ask(reader, agentA);
                expect(reply.cachedTokens).toBe(0);
                expect(reply.text).toBe(fresh.get("tinyA"));
                for (const cacheFile of files)
                    await expect(fs.access(cacheFile)).rejects.toThrow();
            } finally {
                await reader.stop();
            }
        }
    }, 180_000);

    it("never restores one API key's prompt for another, in RAM or from disk", async () => {
        const cacheDir = path.join(work, "two-keys");
        const keys = {apiKeys: ["sk-key-a", "sk-key-b"], promptCacheDir: cacheDir};
        const first = await startTestServer({tiny: model}, {...settings, ...keys});
        try {
            await ask(first, agentA, {key: "sk-key-a"});
            await ask(first, agentB, {key: "sk-key-a"});
            const probe = await ask(first, agentA, {key: "sk-key-b"});
            expect(probe.cachedTokens).toBe(0);
            expect(probe.text).toBe(fresh.get("tinyA"));
        } finally {
            await first.stop();
        }
        const second = await startTestServer({tiny: model}, {...settings, ...keys});
        try {
            // Key B's own prompt of the last server is on disk too now; key A's is key A's alone.
            const probe = await ask(second, agentB, {key: "sk-key-b"});
            expect(probe.cachedTokens).toBe(0);
            const owner = await ask(second, agentA, {key: "sk-key-a"});
            expect(owner.cachedTokens).toBe(owner.promptTokens - 1);
            expect(owner.text).toBe(fresh.get("tinyA"));
        } finally {
            await second.stop();
        }
    }, 180_000);
});

/** The real template families in ../shared/models: their own tokenizers and Jinja templates, restored as the tiny model's are. */
describe.runIf(hasSharedModels)("the prompt cache on the template models", () => {
    // Their tokenizers take fewer tokens for the same text: twice as long, to reach the disk tier's 512.
    const [longA, longB] = [agentA.repeat(2), agentB.repeat(2)];
    for (const [name, file] of [["Qwen2.5", sharedModels.qwenTools], ["Llama 3.2", sharedModels.llama32Tools]] as const)
        it(`restores ${name}'s conversation from RAM and from disk, replying as a fresh evaluation does`, async () => {
            const fresh = await startTestServer({tiny: file}, {...settings, promptCache: false});
            const expected = await ask(fresh, longA).finally(() => fresh.stop());
            const cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-prompt-cache-template-"));
            try {
                const server = await startTestServer({tiny: file}, {...settings, promptCacheDir: cacheDir});
                try {
                    await ask(server, longA);
                    await ask(server, longB);
                    const restored = await ask(server, longA);
                    expect(restored.text).toBe(expected.text);
                    expect(restored.cachedTokens).toBe(restored.promptTokens - 1);
                } finally {
                    await server.stop();
                }
                const restarted = await startTestServer({tiny: file}, {...settings, promptCacheDir: cacheDir});
                try {
                    const fromDisk = await ask(restarted, longA);
                    expect(fromDisk.text).toBe(expected.text);
                    expect(fromDisk.cachedTokens).toBe(fromDisk.promptTokens - 1);
                } finally {
                    await restarted.stop();
                }
            } finally {
                await fs.rm(cacheDir, {recursive: true, force: true});
            }
        }, 120_000);
});

async function cacheFiles(dir: string): Promise<string[]> {
    const files: string[] = [];
    for (const layout of await fs.readdir(dir))
        for (const name of await fs.readdir(path.join(dir, layout)))
            if (name.endsWith(".kvcache"))
                files.push(path.join(dir, layout, name));
    return files;
}
