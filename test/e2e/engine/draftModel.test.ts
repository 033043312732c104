// A draft model (chatserve.json's `draft`) through a real server and the official client: replies
// at temperature 0 are the same byte for byte as the model's without a draft, streamed and not,
// with a stop sequence, and two streams sharing batches; with the model itself as its draft (every
// drafted token right) and with a same-tokenizer model of other weights (most drafted tokens wrong,
// so the target's and the draft's sequences both take rejected drafts back). A draft whose tokenizer
// differs is refused at load, said in /v1/models, and the model serves without it.
import type OpenAI from "openai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {parsePrometheusText} from "../../http/support/prometheusText.js";
import {fixedDraftCost, startTestServer, type TestServer} from "../support/testServer.js";

type Listed = {id: string, memory_bytes: number, draft?: {path: string, draft_tokens?: number, error?: string}};

describe("a draft model", () => {
    let server: TestServer;
    let client: OpenAI;
    const prompts = ["Tell me a story about a lighthouse.", "one two three four one two three", "Hello"];

    beforeAll(async () => {
        const file = await buildTinyChatModel();
        // The same tokenizer, other weights: its guesses are mostly wrong.
        const otherWeights = await buildTinyChatModel(undefined, {seed: 2});
        // A tokenizer that does not add BOS where the model's does: llama.cpp refuses the pairing.
        const noBos = await buildTinyChatModel(undefined, {bos: false});
        const settings = {models: {
            self: {draft: "self-draft.gguf", draft_tokens: 4},
            other: {draft: "other-draft.gguf", draft_tokens: 3},
            mismatched: {draft: "nobos-draft.gguf"}
        }};
        server = await startTestServer({plain: file, self: file, other: file, mismatched: file}, {parallel: 2, ctxSize: 512, ...fixedDraftCost}, {
            "self-draft.gguf": file, "other-draft.gguf": otherWeights, "nobos-draft.gguf": noBos, "chatserve.json": JSON.stringify(settings)
        });
        client = server.client();
    });
    afterAll(async () => {
        await server?.stop();
    });

    const reply = async (model: string, content: string, stop?: string[]) => {
        const completion = await client.chat.completions.create({model, messages: [{role: "user", content}], max_tokens: 48, temperature: 0, ...(stop == null ? {} : {stop})});
        return completion.choices[0]!.message.content ?? "";
    };
    const streamed = async (model: string, content: string) => {
        const stream = await client.chat.completions.create({model, messages: [{role: "user", content}], max_tokens: 48, temperature: 0, stream: true});
        let text = "";
        for await (const chunk of stream)
            text += chunk.choices[0]?.delta.content ?? "";
        return text;
    };
    const metric = async (name: string, model: string) => {
        const metrics = parsePrometheusText(await (await fetch(`${server.url.replace(/\/v1$/, "")}/metrics`)).text());
        return metrics.value(`chatserve:${name}`, {model, source: "draft"});
    };
    const listed = async (id: string) => {
        const {data} = await (await fetch(`${server.url}/models`)).json() as {data: Listed[]};
        return data.find((model) => model.id === id)!;
    };

    for (const model of ["self", "other"])
        it(`gives the model's own replies with ${model === "self" ? "itself" : "a model of other weights"} as its draft, streamed and not`, async () => {
            for (const prompt of prompts) {
                const plain = await reply("plain", prompt);
                expect(await reply(model, prompt)).toBe(plain);
                expect(await streamed(model, prompt)).toBe(plain);
            }
            const drafted = await metric("spec_decode_num_draft_tokens_total", model);
            const accepted = await metric("spec_decode_num_accepted_tokens_total", model);
            expect(drafted).toBeGreaterThan(0);
            expect(accepted).toBeLessThanOrEqual(drafted!);
            if (model === "self")
                expect(accepted).toBeGreaterThan(0);
        });

    it("ends at a stop sequence where the model without a draft does, and keeps two streams apart", async () => {
        const full = await reply("plain", prompts[0]!);
        expect(full.length).toBeGreaterThan(24);
        const stop = full.slice(20, 23);
        for (const model of ["self", "other"])
            expect(await reply(model, prompts[0]!, [stop])).toBe(await reply("plain", prompts[0]!, [stop]));
        const plain = await Promise.all(prompts.slice(0, 2).map((prompt) => reply("plain", prompt)));
        expect(await Promise.all(prompts.slice(0, 2).map((prompt) => streamed("self", prompt)))).toEqual(plain);
        expect(await Promise.all(prompts.slice(0, 2).map((prompt) => reply("other", prompt)))).toEqual(plain);
    });

    it("lists the draft with its model and counts its memory there", async () => {
        await reply("plain", "Hello");
        await reply("self", "Hello");
        const [plain, self] = [await listed("plain"), await listed("self")];
        expect(self.draft).toMatchObject({draft_tokens: 4});
        expect(self.draft!.path.endsWith("self-draft.gguf")).toBe(true);
        expect(self.draft!.error).toBeUndefined();
        expect(plain.draft).toBeUndefined();
        // The draft's weights and its context (two sequences of the model's length) are the model's too.
        expect(self.memory_bytes).toBeGreaterThan(plain.memory_bytes);
    });

    it("refuses a draft whose tokenizer differs at load, saying why, and the model serves without it", async () => {
        expect(await reply("mismatched", prompts[0]!)).toBe(await reply("plain", prompts[0]!));
        const mismatched = await listed("mismatched");
        expect(mismatched.draft!.error).toMatch(/not used: its BOS token differs from the model's/);
        expect(await metric("spec_decode_num_draft_tokens_total", "mismatched")).toBeUndefined();
    });
});

describe("--draft-model", () => {
    let server: TestServer;
    let plain: TestServer;

    beforeAll(async () => {
        const file = await buildTinyChatModel();
        const draft = await buildTinyChatModel(undefined, {seed: 2});
        // The draft's own file is in the folder too: it is served without a draft of itself.
        server = await startTestServer({target: file, draft}, {parallel: 1, ctxSize: 512, draftModel: draft, ...fixedDraftCost});
        plain = await startTestServer({target: file}, {parallel: 1, ctxSize: 512});
    });
    afterAll(async () => {
        await server?.stop();
        await plain?.stop();
    });

    it("pairs every chat model but the draft's own file with it, and the replies stay the model's", async () => {
        const {data} = await (await fetch(`${server.url}/models`)).json() as {data: Listed[]};
        const target = data.find((model) => model.id === "target")!;
        expect(target.draft!.path).toMatch(/tiny-chat.*\.gguf$/);
        expect(target.draft!.draft_tokens).toBeUndefined();
        expect(data.find((model) => model.id === "draft")!.draft).toBeUndefined();
        const ask = async (on: TestServer) => (await on.client().chat.completions.create({
            model: "target", messages: [{role: "user", content: "Hello"}], max_tokens: 24, temperature: 0
        })).choices[0]!.message.content;
        expect(await ask(server)).toBe(await ask(plain));
    });
});

