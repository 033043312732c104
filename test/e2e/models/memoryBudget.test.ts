import {afterAll, beforeAll, describe, expect, it} from "vitest";
import type OpenAI from "openai";
import type {ModelObject} from "../../../src/api/models/models.js";
import {totalBytes} from "../../../src/models/memoryEstimate.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/**
 * Two real tiny models and a --memory-limit that holds only one of them, used through the
 * official client as a new user would switch between them: each request is served, the other
 * model is unloaded to make room (never while it is busy), and /v1/models tells the truth.
 */
describe("a memory budget that holds one model of two", () => {
    let server: TestServer;
    let client: OpenAI;
    const messages = [{role: "user" as const, content: "Say something."}];

    const entries = async () => Object.fromEntries((await client.models.list()).data.map((model) => [model.id, model as unknown as ModelObject]));
    const loaded = async () => Object.values(await entries()).filter((model) => model.loaded).map((model) => model.id).sort();
    const chat = async (model: string, extra: Record<string, unknown> = {}) =>
        await client.chat.completions.create({model, messages, max_tokens: 4, temperature: 0, ...extra} as OpenAI.ChatCompletionCreateParamsNonStreaming);

    beforeAll(async () => {
        const models = {first: await buildTinyChatModel(undefined, {seed: 1}), second: await buildTinyChatModel(undefined, {seed: 2})};
        // What the two models take decides the limit: estimated before their first load, counted by
        // llama.cpp after it (which later decisions use). Either fits alone; no two of them together.
        const unlimited = await startTestServer(models);
        const sizes: number[][] = [];
        for (const id of Object.keys(models)) {
            const estimate = totalBytes((await unlimited.registry.describe(id)).memory);
            sizes.push([estimate, totalBytes((await unlimited.registry.warm(id)).memory)]);
        }
        await unlimited.stop();
        const [first, second] = sizes as [number[], number[]];
        const largestAlone = Math.max(...first, ...second);
        const smallestPair = Math.min(...first.flatMap((a) => second.map((b) => a + b)));
        expect(largestAlone).toBeLessThan(smallestPair);
        const memoryLimit = Math.floor((largestAlone + smallestPair) / 2);
        // No RAM tier for the prompt cache: it would be taken out of this limit, made to hold one model exactly.
        server = await startTestServer(models, {memoryLimit, memoryWaitMs: 60_000, promptCacheRam: 0});
        client = server.client();
    });
    afterAll(async () => server?.stop());

    it("lists both before any request, unloaded, with what each will take", async () => {
        const listed = await entries();
        for (const id of ["first", "second"])
            expect(listed[id]).toMatchObject({loaded: false, loading: false, memory_measured: false, active_requests: 0, expires_at: null, keep_alive: null});
        expect(listed.first!.memory_bytes).toBeGreaterThan(0);
        expect(listed.first!.memory_bytes).toBeLessThanOrEqual(server.memoryBudget.bytes);
    });

    it("switches models as requests ask for them, unloading the idle one to make room", async () => {
        expect((await chat("first")).choices[0]!.message.role).toBe("assistant");
        expect(await loaded()).toEqual(["first"]);
        const first = (await entries()).first!;
        expect(first).toMatchObject({memory_measured: true, context_length: 1024, active_requests: 0});
        expect(first.memory_bytes).toBeGreaterThan(0);

        expect((await chat("second")).usage!.completion_tokens).toBeGreaterThan(0);
        expect(await loaded()).toEqual(["second"]);
        expect((await chat("first")).usage!.completion_tokens).toBeGreaterThan(0);
        expect(await loaded()).toEqual(["first"]);
    });

    it("lets a request for the other model wait while the loaded one is busy, then serves it", async () => {
        await chat("first");
        // A request in flight on `first`, held here so that it stays busy for as long as the test says.
        const busy = await server.registry.acquire("first", "chat");
        const waiting = chat("second");
        let listed = await entries();
        while (!(listed.second!.loading && listed.first!.unloading))
            listed = await entries();
        expect(listed.first).toMatchObject({loaded: true, unloading: true, active_requests: 1});
        expect(listed.second).toMatchObject({loaded: false, loading: true, waiting_for_memory: true, active_requests: 1});

        busy.release();
        expect((await waiting).usage!.completion_tokens).toBeGreaterThan(0);
        expect(await loaded()).toEqual(["second"]);
    });

    it("takes keep_alive from the SDK's extra body, and loads and unloads on request", async () => {
        await chat("second", {keep_alive: 0});
        // The reply is sent before its request lets go of the model: it is freed a moment later (unloading meanwhile).
        let listed = await entries();
        while (listed.second!.loaded) {
            expect(listed.second!.unloading).toBe(true);
            listed = await entries();
        }
        expect(await loaded()).toEqual([]);

        const load = await fetch(`${server.url}/models/first/load`, {method: "POST", body: JSON.stringify({keep_alive: "10m"}), headers: {"Content-Type": "application/json"}});
        expect(load.status).toBe(200);
        expect(await load.json()).toMatchObject({id: "first", loaded: true, keep_alive: 600, memory_measured: true});
        expect((await entries()).first!.expires_at).toBeGreaterThan(Date.now() / 1000);

        const unload = await fetch(`${server.url}/models/first/unload`, {method: "POST"});
        expect(await unload.json()).toMatchObject({id: "first", loaded: false});
        expect(await loaded()).toEqual([]);
    });
});
