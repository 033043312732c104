import fs from "node:fs/promises";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import OpenAI from "openai";
import {buildTinyChatModel} from "../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "./support/sharedModels.js";
import {startTestServer, type TestServer} from "./support/testServer.js";

describe("API keys, hot-added and corrupt model files", () => {
    let server: TestServer;
    let modelFile: string;
    const key = "sk-local-test";

    beforeAll(async () => {
        modelFile = await buildTinyChatModel();
        server = await startTestServer({first: modelFile}, {apiKeys: [key], rescanIntervalMs: 200});
    });
    afterAll(async () => server?.stop());

    it("rejects a missing or wrong key with 401 and accepts the right one", async () => {
        await expect(server.client("wrong").models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
        const noKey = await fetch(`${server.url}/models`);
        expect(noKey.status).toBe(401);
        expect(noKey.headers.get("www-authenticate")).toMatch(/^Bearer/);
        expect((await noKey.json() as {error: {type: string}}).error.type).toBe("authentication_error");

        const reply = await server.client(key).chat.completions.create({model: "first", messages: [{role: "user", content: "Hi"}], max_tokens: 2});
        expect(reply.choices[0]!.message.role).toBe("assistant");
        expect((await fetch(server.url.replace(/\/v1$/, "/health"))).status).toBe(200);
    });

    it("answers headers too large for the server with 431 in the error envelope, and keeps serving", async () => {
        // An IDE plugin that sends a whole file in a header, say: Node refuses it before any route runs.
        const oversized = new OpenAI({baseURL: server.url, apiKey: key, maxRetries: 0, defaultHeaders: {"X-Context": "a".repeat(20_000)}});
        const error = await oversized.models.list().catch((caught: unknown) => caught);
        expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(431);
        expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("headers_too_large");
        expect((error as Error).message).toMatch(/headers are larger than the server accepts/);
        expect((await server.client(key).models.list()).data.length).toBeGreaterThan(0);
    });

    it("picks up a model file added while running, without a restart", async () => {
        await fs.copyFile(modelFile, path.join(server.modelsDir, "added-later.gguf"));
        // A request names it before the periodic rescan: the lookup rescans on a miss.
        const reply = await server.client(key).chat.completions.create({model: "added-later", messages: [{role: "user", content: "Hi"}], max_tokens: 2});
        expect(reply.model).toBe("added-later");
        const ids = (await server.client(key).models.list()).data.map((model) => model.id);
        expect(ids).toEqual(expect.arrayContaining(["first", "added-later"]));
    });

    it("lists a corrupt file as unavailable with the reason and keeps serving", async () => {
        await fs.writeFile(path.join(server.modelsDir, "broken.gguf"), "this is not a gguf file");
        await new Promise((resolve) => setTimeout(resolve, 600));
        const entry = await server.client(key).models.retrieve("broken") as unknown as {status: string, error: string};
        expect(entry.status).toBe("unavailable");
        expect(entry.error).toMatch(/GGUF/i);

        const error = await server.client(key).chat.completions.create({model: "broken", messages: [{role: "user", content: "Hi"}]})
            .catch((caught: unknown) => caught);
        expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
        expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("model_unavailable");

        const reply = await server.client(key).chat.completions.create({model: "first", messages: [{role: "user", content: "Hi"}], max_tokens: 2});
        expect(reply.usage!.completion_tokens).toBeGreaterThan(0);
    });

    it("says why a model failed to load, in its error and in /v1/models, as llama.cpp logged it", async () => {
        // A readable header naming an architecture llama.cpp does not know.
        const bytes = await fs.readFile(modelFile);
        const value = bytes.indexOf(Buffer.from("general.architecture")) + "general.architecture".length + 4 + 8;
        expect(bytes.toString("latin1", value, value + 5)).toBe("llama");
        bytes.write("llamz", value, "latin1");
        await fs.writeFile(path.join(server.modelsDir, "unknown-arch.gguf"), bytes);

        const error = await server.client(key).chat.completions.create({model: "unknown-arch", messages: [{role: "user", content: "Hi"}], max_tokens: 2})
            .then(() => null, (caught: unknown) => caught as InstanceType<typeof OpenAI.APIError>);
        expect(error).toMatchObject({status: 400, code: "model_unavailable"});
        expect(error!.message).toMatch(/llamz/);
        const entry = await server.client(key).models.retrieve("unknown-arch") as unknown as {status: string, error: string};
        expect(entry).toMatchObject({status: "unavailable", error: expect.stringMatching(/unknown model architecture.*llamz/)});
    });

    it("says a file still being downloaded is incomplete, and serves it once it is whole", async () => {
        const bytes = await fs.readFile(modelFile);
        const file = path.join(server.modelsDir, "downloading.gguf");
        await fs.writeFile(file, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
        const error = await server.client(key).chat.completions.create({model: "downloading", messages: [{role: "user", content: "Hi"}], max_tokens: 2})
            .then(() => null, (caught: unknown) => caught as InstanceType<typeof OpenAI.APIError>);
        expect(error).toMatchObject({status: 400, code: "model_unavailable"});
        expect(error!.message).toMatch(/not within the file bounds, model is corrupted or incomplete/);

        await fs.appendFile(file, bytes.subarray(Math.floor(bytes.length * 0.6)));
        // Until a rescan (every 200 ms) has read the whole file: waited on, as a busy machine's timers run late.
        const status = async () => (await server.client(key).models.retrieve("downloading") as unknown as {status: string}).status;
        while (await status() === "unavailable")
            await new Promise((resolve) => setTimeout(resolve, 50));
        const reply = await server.client(key).chat.completions.create({model: "downloading", messages: [{role: "user", content: "Hi"}], max_tokens: 2});
        expect(reply.usage!.completion_tokens).toBeGreaterThan(0);
    });
});

describe.runIf(hasSharedModels)("the default context, and model aliases, through the official client", () => {
    let server: TestServer;
    type Entry = {id: string, context_length: number, parallel: number, kv_cache_bytes: number, context_memory_bytes?: number, alias_for?: string, aliases?: string[]};

    beforeAll(async () => {
        // No --ctx-size or --parallel: sized from the model (trained for 32768 tokens) and the memory free.
        server = await startTestServer({qwen: sharedModels.qwenTools}, {
            ctxSize: undefined, parallel: undefined,
            modelAliases: [{name: "gpt-4o", model: "qwen"}, {name: "claude-*", model: "qwen"}]
        });
    });
    afterAll(async () => server?.stop());

    it("lists what a request gets and what the KV cache costs, and the aliases, before and after the model loads", async () => {
        const listed = (await server.client().models.list()).data as unknown as Entry[];
        expect(listed.map((entry) => [entry.id, entry.alias_for])).toEqual([["qwen", undefined], ["gpt-4o", "qwen"]]);
        const [qwen, alias] = listed;
        expect(qwen).toMatchObject({context_length: 32768, aliases: ["gpt-4o", "claude-*"]});
        expect(qwen!.parallel).toBeGreaterThanOrEqual(1);
        expect(qwen!.parallel).toBeLessThanOrEqual(4);
        // 2 layers × 2 KV heads × 16 dimensions × (K + V) × 2 bytes = 256 bytes a token, in each sequence.
        expect(qwen!.kv_cache_bytes).toBe(qwen!.parallel * 32768 * 256);
        expect(alias).toMatchObject({context_length: 32768, parallel: qwen!.parallel, kv_cache_bytes: qwen!.kv_cache_bytes});

        await server.client().chat.completions.create({model: "qwen", messages: [{role: "user", content: "Hi"}], max_tokens: 1});
        const loaded = await server.client().models.retrieve("qwen") as unknown as Entry;
        expect(loaded).toMatchObject({context_length: 32768, parallel: qwen!.parallel, kv_cache_bytes: qwen!.kv_cache_bytes});
        // llama.cpp's own account: the KV cache, plus compute and output buffers.
        expect(loaded.context_memory_bytes).toBeGreaterThan(loaded.kv_cache_bytes);
    });

    it("serves a name a pattern covers, echoing it, with a prompt longer than the old 4096-token default", async () => {
        const words = Array.from({length: 3600}, (_, index) => `word${index % 50}`).join(" ");
        const reply = await server.client().chat.completions.create({model: "claude-sonnet-4-5", messages: [{role: "user", content: words}], max_tokens: 2});
        expect(reply.model).toBe("claude-sonnet-4-5");
        expect(reply.usage!.prompt_tokens).toBeGreaterThan(4096);
        expect((await server.client().models.retrieve("claude-x") as unknown as Entry).alias_for).toBe("qwen");
    });

    it("still answers 404 for a name no alias covers", async () => {
        const error = await server.client().chat.completions.create({model: "gpt-5", messages: [{role: "user", content: "Hi"}]}).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("model_not_found");
    });
});
