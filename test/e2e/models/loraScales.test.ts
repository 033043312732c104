// A request's own LoRA scales (llama-server's `lora: [{id, scale}]`), end to end on the tiny chat
// model and the tiny adapter the fixtures build: scale 0 is the base model's reply, the declared
// scale the default reply, another scale a third reply; two requests under different scales at
// once each get what they get alone (the pool runs one adapter set at a time); and no cached
// prefix crosses from one set to another, in the sequences or through the prompt cache.
import OpenAI from "openai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildLoraAdapter} from "../../fixtures/gguf/loraAdapter.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {endOfTurnBanned} from "../support/endOfTurn.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

type Lora = Array<{id: number, scale: number}>;
type Reply = {text: string, cached: number};

/** The served models: "base" (no adapter) and "tuned" (the adapter at scale 1), one file. */
async function serve(parallel: number): Promise<TestServer> {
    const model = await buildTinyChatModel();
    return startTestServer({base: model, tuned: model}, {ctxSize: 1024, parallel}, {
        "adapters-tiny.gguf": await buildLoraAdapter(),
        "chatserve.json": JSON.stringify({models: {tuned: {lora: [{path: "adapters-tiny.gguf"}]}}})
    });
}

/** A greedy chat reply of 16 tokens whose end of turn is banned, so every reply runs its length. */
async function chat(server: TestServer, model: string, content: string, lora?: Lora): Promise<Reply> {
    const reply = await server.client().chat.completions.create({
        model, messages: [{role: "user", content}], temperature: 0, max_tokens: 16,
        logit_bias: await endOfTurnBanned(server.url, model), ...(lora == null ? {} : {lora})
    } as never) as OpenAI.ChatCompletion;
    return {text: reply.choices[0]!.message.content ?? "", cached: reply.usage?.prompt_tokens_details?.cached_tokens ?? 0};
}

const short = "Once upon a time";
/** Long enough that its prefix is worth reusing and the prompt cache keeps it in RAM (256 tokens and more). */
const long = Array.from({length: 24}, (_, index) => `Once upon a time ${index}`).join(", ");

describe("a request's lora scales", () => {
    let server: TestServer;
    beforeAll(async () => {
        server = await serve(2);
    });
    afterAll(async () => server?.stop());

    it("at 0 give the base model's reply, at the declared scale the default reply, at another scale another reply", async () => {
        const base = (await chat(server, "base", short)).text;
        const tuned = (await chat(server, "tuned", short)).text;
        expect(tuned).not.toBe(base);
        expect((await chat(server, "tuned", short, [{id: 0, scale: 0}])).text).toBe(base);
        expect((await chat(server, "tuned", short, [{id: 0, scale: 1}])).text).toBe(tuned);
        expect((await chat(server, "tuned", short, [])).text).toBe(tuned);
        const half = (await chat(server, "tuned", short, [{id: 0, scale: 0.5}])).text;
        expect([base, tuned]).not.toContain(half);
    });

    it("apply on legacy completions too", async () => {
        const complete = async (model: string, lora?: Lora) => (await server.client().completions.create({
            model, prompt: short, temperature: 0, max_tokens: 8, ...(lora == null ? {} : {lora})
        } as never)).choices[0]!.text;
        const base = await complete("base");
        expect(await complete("tuned")).not.toBe(base);
        expect(await complete("tuned", [{id: 0, scale: 0}])).toBe(base);
    });

    it("sent at once, under different scales, each get what they get alone", async () => {
        const sets: Lora[] = [[{id: 0, scale: 0}], [{id: 0, scale: 1}], [{id: 0, scale: 0.5}], [{id: 0, scale: -1}]];
        const alone: string[] = [];
        for (const lora of sets)
            alone.push((await chat(server, "tuned", short, lora)).text);
        expect(new Set(alone).size).toBe(sets.length);
        const together = await Promise.all(sets.map(async (lora) => (await chat(server, "tuned", short, lora)).text));
        expect(together).toEqual(alone);
    });

    it("never reuse a prefix another set's sequence holds; their own set's they do", async () => {
        const first = await chat(server, "tuned", long, [{id: 0, scale: 0.25}]);
        const other = await chat(server, "tuned", long, [{id: 0, scale: 0}]);
        expect(other.cached).toBe(0);
        expect(other.text).toBe((await chat(server, "base", long)).text);
        const again = await chat(server, "tuned", long, [{id: 0, scale: 0.25}]);
        expect(again.cached).toBeGreaterThan(200);
        expect(again.text).toBe(first.text);
        expect(first.text).not.toBe(other.text);
    });
});

describe("a request's lora scales and the prompt cache", () => {
    let server: TestServer;
    beforeAll(async () => {
        // One sequence: each request replaces the last one's cells, which the prompt cache keeps in RAM.
        server = await serve(1);
    });
    afterAll(async () => server?.stop());

    it("restore a prompt only under the scales it was evaluated with", async () => {
        const base = (await chat(server, "base", long)).text;
        const tuned = await chat(server, "tuned", long);
        const off = await chat(server, "tuned", long, [{id: 0, scale: 0}]);
        expect(off.cached).toBe(0);
        expect(off.text).toBe(base);
        // Each comes back from the RAM tier, its own set's state, and replies as it did.
        const tunedAgain = await chat(server, "tuned", long, [{id: 0, scale: 1}]);
        expect(tunedAgain.cached).toBeGreaterThan(200);
        expect(tunedAgain.text).toBe(tuned.text);
        const offAgain = await chat(server, "tuned", long, [{id: 0, scale: 0}]);
        expect(offAgain.cached).toBeGreaterThan(200);
        expect(offAgain.text).toBe(base);
        expect(tuned.text).not.toBe(base);
    });
});
