import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import OpenAI from "openai";
import {buildTinyChatModel, buildTinyEmbeddingModel} from "../../../fixtures/gguf/tinyModels.js";
import {buildSpmVocab} from "../../../fixtures/gguf/vocab.js";
import {hasSharedModels, sharedModels} from "../../support/sharedModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

/** Legacy completions (IDE autocomplete) and embeddings, through the official client, on models the tests build. */
describe("completions, fill-in-the-middle and embeddings", () => {
    let server: TestServer;
    let client: OpenAI;

    beforeAll(async () => {
        server = await startTestServer({
            "tiny-fim": await buildTinyChatModel(undefined, {fim: true}),
            "tiny-chat": await buildTinyChatModel(),
            "tiny-nobos": await buildTinyChatModel(undefined, {bos: false}),
            "tiny-embed": await buildTinyEmbeddingModel(),
            ...(hasSharedModels ? {"bert": sharedModels.bertEmbedding, "qwen": sharedModels.qwenTools} : {})
        });
        client = server.client();
    });
    afterAll(async () => server?.stop());

    it("completes a raw prompt with OpenAI's default of 16 tokens, streamed or not, identically", async () => {
        const request = {model: "tiny-chat", prompt: "the cat", temperature: 0};
        const reply = await client.completions.create(request);
        expect(reply.object).toBe("text_completion");
        expect(reply.id).toMatch(/^cmpl-/);
        expect(reply.choices[0]!.finish_reason).toBe("length");
        expect(reply.usage!.completion_tokens).toBe(16);

        const stream = await client.completions.create({...request, stream: true, stream_options: {include_usage: true}});
        let text = "";
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) {
            text += chunk.choices[0]?.text ?? "";
            usage = chunk.usage ?? usage;
        }
        expect(text).toBe(reply.choices[0]!.text);
        expect(usage!.total_tokens).toBe(reply.usage!.total_tokens);
    });

    it("refuses an empty prompt on a model that adds no beginning-of-text token with 400, and then serves it", async () => {
        for (const stream of [false, true]) {
            const refused = await fetch(`${server.url}/completions`, {
                method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify({model: "tiny-nobos", prompt: ["the cat", ""], max_tokens: 3, stream})
            });
            expect(refused.status).toBe(400);
            expect((await refused.json() as {error: unknown}).error).toMatchObject({type: "invalid_request_error", param: "prompt", message: expect.stringContaining("empty")});
        }
        const reply = await client.completions.create({model: "tiny-nobos", prompt: "the cat", max_tokens: 3, temperature: 0});
        expect(reply.usage!.completion_tokens).toBe(3);
        // With BOS, "" is one token: something to generate after.
        expect((await client.completions.create({model: "tiny-chat", prompt: "", max_tokens: 3})).usage!.prompt_tokens).toBe(1);
    });

    it("answers one choice per prompt of an array, with usage summed, and echo prepends the prompt", async () => {
        const reply = await client.completions.create({model: "tiny-chat", prompt: ["the cat", "a dog"], max_tokens: 3, temperature: 0, echo: true});
        expect(reply.choices.map((choice) => choice.index)).toEqual([0, 1]);
        expect(reply.choices[0]!.text.startsWith("the cat")).toBe(true);
        expect(reply.choices[1]!.text.startsWith("a dog")).toBe(true);
        expect(reply.usage!.completion_tokens).toBe(6);
    });

    it("takes prompts as token ids, evaluated as they came: the reply the text they spell gets", async () => {
        const vocab = buildSpmVocab();
        const ids = [vocab.id("<s>"), vocab.id("\u2581the"), vocab.id("\u2581time")];
        const byText = await client.completions.create({model: "tiny-chat", prompt: "the time", max_tokens: 4, temperature: 0});
        const byIds = await client.completions.create({model: "tiny-chat", prompt: ids, max_tokens: 4, temperature: 0, echo: true});
        expect([byIds.usage!.prompt_tokens, byIds.usage!.completion_tokens]).toEqual([3, 4]);
        expect(byText.usage!.prompt_tokens).toBe(3);
        expect(byIds.choices[0]!.text).toMatch(/^<s>\s?the time/);
        expect(byIds.choices[0]!.text.endsWith(byText.choices[0]!.text)).toBe(true);

        const two = await client.completions.create({model: "tiny-chat", prompt: [ids, ids], max_tokens: 4, temperature: 0});
        expect(two.choices.map((choice) => choice.text)).toEqual([byText.choices[0]!.text, byText.choices[0]!.text]);

        const refusals = [
            await client.completions.create({model: "tiny-chat", prompt: [ids, [1, 1_000_000]]}).catch((caught: unknown) => caught),
            await client.completions.create({model: "tiny-fim", prompt: ids, suffix: "the end"}).catch((caught: unknown) => caught)
        ];
        expect(refusals[0]).toMatchObject({status: 400, code: "invalid_value", param: "prompt[1]", message: expect.stringContaining("token id 1000000")});
        expect(refusals[1]).toMatchObject({status: 400, code: "invalid_value", param: "suffix"});
    });

    it.runIf(hasSharedModels)("evaluates token ids as sent even where a cached sequence spells the same text otherwise (Qwen's BPE)", async () => {
        const text = "Lily went to the park with her mom and saw a big red ball in the grass";
        const cached = await client.completions.create({model: "qwen", prompt: text, max_tokens: 1, temperature: 0});
        // The same text in other ids: its first words as the tokenizer splits them, the rest letter by letter.
        const llama = await getLlama({build: "never", gpu: false, logLevel: LlamaLogLevel.error});
        const model = await llama.loadModel({modelPath: sharedModels.qwenTools});
        const vocabulary = model.fileInfo.metadata.tokenizer.ggml.tokens;
        const idOf = new Map(vocabulary.map((piece, id) => [piece, id]));
        const words = model.tokenize(text);
        const spelled = [...words.slice(0, 4), ...words.slice(4).flatMap((id) => [...vocabulary[id]!].map((char) => idOf.get(char)!))];
        await model.dispose();
        expect(spelled.length).toBeGreaterThan(cached.usage!.prompt_tokens);
        const reply = await client.completions.create({model: "qwen", prompt: spelled, max_tokens: 1, temperature: 0});
        expect(reply.usage!.prompt_tokens).toBe(spelled.length);
    });

    it("applies a long stop list without leaking any stop text", async () => {
        const full = (await client.completions.create({model: "tiny-chat", prompt: "the cat", max_tokens: 30, temperature: 0})).choices[0]!.text;
        const stop = full.slice(10, 13);
        const stops = [...Array.from({length: 20}, (_, index) => `\u0001never${index}`), stop];
        const reply = await client.completions.create({model: "tiny-chat", prompt: "the cat", max_tokens: 30, temperature: 0, stop: stops});
        expect(reply.choices[0]!.text).toBe(full.slice(0, full.indexOf(stop)));
        expect(reply.choices[0]!.finish_reason).toBe("stop");
    });

    it("frames a suffix with the model's FIM tokens, and refuses suffix on a model without them", async () => {
        const reply = await client.completions.create({model: "tiny-fim", prompt: "the cat", suffix: " the dog", max_tokens: 4, temperature: 0});
        // <s> <PRE> prefix <SUF> suffix <MID>: three FIM tokens besides BOS and the two texts' own tokens.
        const promptTokens = async (prompt: string) =>
            (await client.completions.create({model: "tiny-fim", prompt, max_tokens: 1, temperature: 0})).usage!.prompt_tokens - 1;
        expect(reply.usage!.prompt_tokens).toBe(1 + await promptTokens("the cat") + await promptTokens(" the dog") + 3);

        const error = await client.completions.create({model: "tiny-chat", prompt: "x", suffix: "y"}).catch((caught: unknown) => caught);
        expect((error as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
        expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("suffix");
        const list = await client.models.list();
        expect((list.data.find((model) => model.id === "tiny-fim") as unknown as {capabilities: string[]}).capabilities).toContain("fim");
    });

    it("cuts a fill-in-the-middle prompt that overflows the context to fit, rather than refusing it (IDE plugins send whole files)", async () => {
        const prefix = "the cat sat on the mat ".repeat(150_000);
        const suffix = " the dog ran to the park".repeat(150_000);
        for (const max_tokens of [8, 200]) {
            const reply = await client.completions.create({model: "tiny-fim", prompt: prefix, suffix, max_tokens, temperature: 0});
            expect(reply.choices[0]!.finish_reason).toBe("length");
            expect(reply.usage!.completion_tokens).toBe(max_tokens);
            // The whole room the completion leaves in the 1,024-token context, but for a token or two lost at the cuts.
            expect(reply.usage!.prompt_tokens).toBeLessThanOrEqual(1024 - max_tokens);
            expect(reply.usage!.prompt_tokens).toBeGreaterThan(1024 - max_tokens - 4);
        }
        // Without max_tokens the completion is OpenAI's default of 16 tokens.
        const fallback = await client.completions.create({model: "tiny-fim", prompt: prefix, suffix, temperature: 0});
        expect(fallback.usage!.prompt_tokens + fallback.usage!.completion_tokens).toBeLessThanOrEqual(1024);
        // A max_tokens that would leave no room for either side keeps half the context for them; the completion gets the rest.
        const greedy = await client.completions.create({model: "tiny-fim", prompt: prefix, suffix, max_tokens: 32_000, temperature: 0});
        expect(greedy.usage!.prompt_tokens).toBeGreaterThan(512 - 4);
        expect(greedy.usage!.prompt_tokens + greedy.usage!.completion_tokens).toBeLessThanOrEqual(1024);
    });

    it("embeds a batch; the SDK's default base64 decodes to the float vectors; deterministic", async () => {
        const input = ["hello world", "the cat"];
        const floats = await client.embeddings.create({model: "tiny-embed", input, encoding_format: "float"});
        const viaBase64 = await client.embeddings.create({model: "tiny-embed", input});
        expect(floats.object).toBe("list");
        expect(floats.data.map((item) => item.index)).toEqual([0, 1]);
        expect(floats.data[0]!.embedding).toHaveLength(64);
        // Usage counts what was evaluated: each input's tokens (one per word of the tiny vocabulary here) and the [CLS] and [SEP] around it.
        const counted = await client.embeddings.create({model: "tiny-embed", input: ["the time", "one word"], encoding_format: "float"});
        expect(counted.usage).toMatchObject({prompt_tokens: 2 + 2 + 2 * 2, total_tokens: 8});
        for (const [index, item] of viaBase64.data.entries())
            item.embedding.forEach((value, dimension) => expect(value).toBeCloseTo(floats.data[index]!.embedding[dimension]!, 5));
        expect(floats.data[0]!.embedding).not.toEqual(floats.data[1]!.embedding);
        // Unit length, as OpenAI's and llama-server's: a dot product is the cosine similarity.
        for (const item of [...floats.data, ...counted.data])
            expect(Math.hypot(...item.embedding)).toBeCloseTo(1, 5);
        const again = await client.embeddings.create({model: "tiny-embed", input: "hello world", encoding_format: "float"});
        expect(again.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
    });

    it.runIf(hasSharedModels)("embeds with the shared BERT model (real BGE tokenizer)", async () => {
        const reply = await client.embeddings.create({model: "bert", input: ["héllo wörld", "a longer sentence about embeddings"], encoding_format: "float"});
        expect(reply.data).toHaveLength(2);
        expect(reply.data[0]!.embedding).toHaveLength(64);
        for (const item of reply.data)
            expect(Math.hypot(...item.embedding)).toBeCloseTo(1, 5);
    });

    it("embeds inputs up to the longest that fits with the tokens the model adds, and refuses longer ones with 400", async () => {
        const statuses = new Map<number, number>();
        for (let length = 504; length <= 513; length++) {
            const response = await fetch(`${server.url}/embeddings`, {
                method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify({model: "tiny-embed", input: [Array(length).fill(10)], encoding_format: "float"})
            });
            statuses.set(length, response.status);
        }
        const longest = Math.max(...[...statuses].filter(([, status]) => status === 200).map(([length]) => length));
        expect(longest).toBeGreaterThanOrEqual(504);
        for (const [length, status] of statuses)
            expect(status).toBe(length <= longest ? 200 : 400);
    });

    it("refuses megabytes of prompt or embedding input as context_length_exceeded, counting only part of it", async () => {
        const huge = "the cat sat on the mat ".repeat(150_000);
        const refusals = [
            {error: await client.completions.create({model: "tiny-chat", prompt: huge}).catch((caught: unknown) => caught), param: "prompt"},
            {error: await client.embeddings.create({model: "tiny-embed", input: ["hi", huge]}).catch((caught: unknown) => caught), param: "input[1]"}
        ];
        for (const {error, param} of refusals) {
            expect(error).toBeInstanceOf(OpenAI.BadRequestError);
            expect(error).toMatchObject({code: "context_length_exceeded", param, message: expect.stringMatching(/resulted in more than \d+ tokens/)});
        }
        expect((refusals[1]!.error as Error).message).toContain("your input[1] resulted");
    });

    it("refuses embeddings from a chat model, over-long inputs and unsupported dimensions with 400", async () => {
        const cases = [
            {model: "tiny-chat", input: "hi"},
            {model: "tiny-embed", input: "the cat ".repeat(400)},
            {model: "tiny-embed", input: "hi", dimensions: 8}
        ];
        for (const request of cases) {
            const error = await client.embeddings.create(request).catch((caught: unknown) => caught);
            expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
        }
    });
});

describe("an embedding model's context in /v1/models", () => {
    let server: TestServer;

    beforeAll(async () => {
        server = await startTestServer({"tiny-embed": await buildTinyEmbeddingModel()}, {ctxSize: 128});
    });
    afterAll(async () => server?.stop());

    it("reports the context it embeds with, before and after it loads", async () => {
        const contextLength = async () => ((await server.client().models.list()).data[0] as unknown as {context_length: number}).context_length;
        expect(await contextLength()).toBe(128);
        await server.client().embeddings.create({model: "tiny-embed", input: "hello"});
        expect(await contextLength()).toBe(128);
    });
});

describe("a chat model's context at a --ctx-size llama.cpp rounds up", () => {
    let server: TestServer;

    beforeAll(async () => {
        server = await startTestServer({"tiny-chat": await buildTinyChatModel()}, {ctxSize: 200, parallel: 4});
    });
    afterAll(async () => server?.stop());

    it("serves and reports what was asked for, before and after it loads (llama.cpp makes it 256)", async () => {
        const client = server.client();
        const contextLength = async () => ((await client.models.list()).data[0] as unknown as {context_length: number}).context_length;
        expect(await contextLength()).toBe(200);
        const reply = await client.chat.completions.create({model: "tiny-chat", messages: [{role: "user", content: "Hi"}], max_tokens: 2});
        expect(await contextLength()).toBe(200);
        // A completion may have the 200 tokens, not the 256 llama.cpp made: max_tokens beyond them gets the room up to 200.
        const greedy = await client.chat.completions.create({model: "tiny-chat", messages: [{role: "user", content: "Hi"}], max_tokens: 1000});
        expect(greedy.usage!.total_tokens).toBeLessThanOrEqual(200);
        expect(server.registry.list()[0]!.contextLength).toBe(200);
        expect(reply.usage!.prompt_tokens).toBe(greedy.usage!.prompt_tokens);
    });
});
