// LoRA adapters declared in chatserve.json, end to end: the tiny chat model served twice from one
// file, as "base" and as "tuned" with the tiny adapter the fixtures build. The adapter is applied
// (tuned's greedy reply differs from base's; at scale 0 it is base's), listed in /v1/models,
// counted in the memory estimate; one made for another architecture makes its model unavailable
// at load, saying why; a request's `lora` naming an adapter the model lacks is a 400 (a request's
// own scales: loraScales.test.ts).
import OpenAI from "openai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildLoraAdapter} from "../../fixtures/gguf/loraAdapter.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

type Listed = {id: string, status: string, error?: string, memory_bytes: number, lora_adapters?: Array<{id: number, path: string, scale: number}>};

describe("LoRA adapters in chatserve.json", () => {
    let server: TestServer;
    const ask = (model: string, extra: object = {}) => server.client().chat.completions.create({
        model, messages: [{role: "user", content: "Once upon a time"}], temperature: 0, max_tokens: 12, ...extra
    } as never) as Promise<OpenAI.ChatCompletion>;
    const listed = async (id: string): Promise<Listed> =>
        ((await (await fetch(`${server.url}/models`)).json()) as {data: Listed[]}).data.find((model) => model.id === id)!;

    beforeAll(async () => {
        const model = await buildTinyChatModel();
        server = await startTestServer({base: model, tuned: model, unscaled: model, foreign: model}, {ctxSize: 512, parallel: 1}, {
            "adapters-tiny.gguf": await buildLoraAdapter(),
            "adapters-qwen2.gguf": await buildLoraAdapter(undefined, {architecture: "qwen2"}),
            "chatserve.json": JSON.stringify({models: {
                tuned: {lora: [{path: "adapters-tiny.gguf"}]},
                unscaled: {lora: [{path: "adapters-tiny.gguf", scale: 0}]},
                foreign: {lora: [{path: "adapters-qwen2.gguf", scale: 0.5}]}
            }})
        });
    });
    afterAll(async () => server?.stop());

    it("are listed with their scales, their files counted in the model's memory, and the adapter files as what they are", async () => {
        const [base, tuned] = [await listed("base"), await listed("tuned")];
        expect(base.lora_adapters).toBeUndefined();
        expect(tuned.lora_adapters).toEqual([{id: 0, path: expect.stringMatching(/adapters-tiny\.gguf$/), scale: 1}]);
        expect(tuned.memory_bytes).toBeGreaterThan(base.memory_bytes);
        expect(await listed("adapters-tiny")).toMatchObject({status: "unavailable", error: expect.stringContaining("it is a LoRA adapter, not a model")});
    });

    it("are applied: the tuned model's greedy reply differs from the base model's, and at scale 0 it is the base model's", async () => {
        const base = (await ask("base")).choices[0]!.message.content;
        expect((await ask("tuned")).choices[0]!.message.content).not.toBe(base);
        expect((await ask("unscaled")).choices[0]!.message.content).toBe(base);
    });

    it("made for another architecture, make the model unavailable at load, saying so; the others go on serving", async () => {
        const refused = await ask("foreign").catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(OpenAI.APIError);
        expect((refused as Error).message).toMatch(/made for the 'qwen2' architecture, and this model is 'llama'/);
        expect((await ask("base")).choices).toHaveLength(1);
    });

    it("refuse a request's scales for an adapter the model does not have with a 400, on chat and completions", async () => {
        await expect(ask("tuned", {lora: [{id: 1, scale: 0.5}]})).rejects.toMatchObject({status: 400, param: "lora[0].id", code: "invalid_value"});
        const completion = server.client().completions.create({model: "base", prompt: "Hi", max_tokens: 2, lora: [{id: 0, scale: 1}]} as never);
        await expect(completion).rejects.toMatchObject({status: 400, param: "lora[0].id"});
        expect((await ask("tuned", {lora: []})).choices).toHaveLength(1);
    });
});
