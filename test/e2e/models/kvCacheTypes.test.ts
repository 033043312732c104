// KV-cache types end to end: a real server with --cache-type-k/-v q8_0 loads the model with a
// quantized cache (llama.cpp's own account of the context is smaller than with f16), reports the
// types and the smaller estimate in /v1/models, generates, and refuses a model whose heads are not
// a whole number of q8_0 blocks wide, saying why.
import OpenAI from "openai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {buildWideHeadChatModel} from "../../fixtures/gguf/wideHeadModel.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

type Listed = {id: string, kv_cache_bytes: number | null, cache_type_k?: string, cache_type_v?: string, context_memory_bytes?: number, status: string, error?: string};

async function listed(server: TestServer, id: string): Promise<Listed> {
    const {data} = await (await fetch(`${server.url}/models`)).json() as {data: Listed[]};
    return data.find((model) => model.id === id)!;
}

describe("--cache-type-k / --cache-type-v", () => {
    let f16: TestServer;
    let q8: TestServer;
    const reply = (server: TestServer, model: string) => server.client().chat.completions.create({
        model, messages: [{role: "user", content: "Hi"}], temperature: 0, max_tokens: 8
    });

    beforeAll(async () => {
        const wide = await buildWideHeadChatModel();
        f16 = await startTestServer({wide}, {ctxSize: 2048, parallel: 1});
        q8 = await startTestServer({wide, narrow: await buildTinyChatModel()}, {ctxSize: 2048, parallel: 1, cacheTypeK: "q8_0", cacheTypeV: "q8_0"});
    });
    afterAll(async () => {
        await f16?.stop();
        await q8?.stop();
    });

    it("lists the types and a cache of 34/64 the f16 one's size before loading", async () => {
        const [plain, quantized] = [await listed(f16, "wide"), await listed(q8, "wide")];
        expect(plain).toMatchObject({cache_type_k: "f16", cache_type_v: "f16"});
        expect(quantized).toMatchObject({cache_type_k: "q8_0", cache_type_v: "q8_0"});
        expect(quantized.kv_cache_bytes).toBe(Math.ceil(plain.kv_cache_bytes! * 34 / 64));
    });

    it("loads the model with a quantized cache: it generates, and llama.cpp's account of its context is smaller", async () => {
        for (const server of [f16, q8]) {
            const answer = await reply(server, "wide");
            expect(answer.choices[0]!.finish_reason).toMatch(/stop|length/);
            expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
        }
        const [plain, quantized] = [await listed(f16, "wide"), await listed(q8, "wide")];
        // The context's buffers: the cache (2 layers × 2048 cells × 32 keys and 32 values) and the compute buffers, the same in both.
        expect(plain.context_memory_bytes! - quantized.context_memory_bytes!).toBe(2 * 2048 * 64 * (2 - 34 / 32));
    });

    it("refuses a model whose 16-wide heads cannot hold q8_0's blocks of 32, saying so; the other model goes on serving", async () => {
        const refused = await reply(q8, "narrow").catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(OpenAI.APIError);
        expect((refused as Error).message).toMatch(/16 wide, not a multiple of q8_0's block of 32/);
        expect((await reply(q8, "wide")).choices).toHaveLength(1);
    });
});
