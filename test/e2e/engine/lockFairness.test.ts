// A request that lands on a sequence holding other tokens must start while other streams run:
// clearing those tokens takes node-llama-cpp's context lock, which the decode loop holds while
// it has work queued.
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {endOfTurnBanned} from "../support/endOfTurn.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

describe("a new request while other streams generate", () => {
    let server: TestServer;
    const model = "tiny-chat";

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 3, ctxSize: 4096});
    });
    afterAll(async () => server?.stop());

    // The end of turn banned: a long stream that ended early would be done before the new request's first token.
    const ask = async (content: string, max_tokens: number) => server.client().chat.completions.create({
        model, messages: [{role: "user", content}], max_tokens, temperature: 1, seed: 7, stream: true, logit_bias: await endOfTurnBanned(server.url, model)
    });

    it.each([1, 2])("gets its first token before %i long stream(s) end", async (background) => {
        // Fill every sequence with tokens the new request does not share.
        await Promise.all([0, 1, 2].map(async (index) => {
            for await (const _chunk of await ask(`Warm up sequence ${index} with unrelated words.`, 8)) { /* drain */ }
        }));

        const events: string[] = [];
        const streams = Array.from({length: background}, async (_, index) => {
            let content = 0;
            for await (const chunk of await ask(`Tell me a very long story, part ${index}.`, 1900)) {
                if (chunk.choices[0]?.delta.content)
                    events.push(`stream ${index} token ${++content}`);
            }
            events.push(`stream ${index} done`);
        });
        const background16 = (async () => {
            while (!events.some((event) => event.endsWith("token 16")))
                await new Promise((resolve) => setTimeout(resolve, 5));
        })();
        await Promise.race([background16, Promise.all(streams)]);

        for await (const chunk of await ask("A completely different question about the sea.", 4)) {
            if (chunk.choices[0]?.delta.content) {
                events.push("new request first token");
                break;
            }
        }
        await Promise.all(streams);
        const first = events.indexOf("new request first token");
        expect(first).toBeGreaterThan(-1);
        for (let index = 0; index < background; index++)
            expect(events.indexOf(`stream ${index} done`)).toBeGreaterThan(first);
    });
});

describe("a long prompt while another stream generates", () => {
    let server: TestServer;
    const model = "tiny-chat";

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 2, ctxSize: 2048});
    });
    afterAll(async () => server?.stop());

    // A prompt's last chunk is sampled after in one decode step. A step of a whole batch never fits
    // beside a generating stream's token, so it goes in part into the room the stream leaves.
    it("gets its answer before the stream ends when its last chunk is a whole batch", async () => {
        const held = await server.registry.acquire(model, "completion");
        const loaded = held.model;
        held.release();
        const batchSize = 512;
        let prompt = "";
        for (let word = 0; (await loaded.prepareText(prompt, "prompt")).tokens.length < batchSize; word++)
            prompt += ` w${word}`;
        while ((await loaded.prepareText(prompt, "prompt")).tokens.length > batchSize)
            prompt = prompt.slice(0, -1);
        expect((await loaded.prepareText(prompt, "prompt")).tokens).toHaveLength(batchSize);

        const events: string[] = [];
        let tokens = 0;
        // The end of turn banned: a stream that ended within 8 tokens would leave the loop below waiting for ever.
        const logit_bias = await endOfTurnBanned(server.url, model);
        const stream = (async () => {
            const chunks = await server.client().completions.create({
                model, prompt: "Once upon a time", max_tokens: 1500, temperature: 1, seed: 3, stream: true, logit_bias
            });
            for await (const _chunk of chunks)
                tokens++;
            events.push("stream done");
        })();
        while (tokens < 8)
            await new Promise((resolve) => setTimeout(resolve, 5));

        await server.client().completions.create({model, prompt, max_tokens: 2, temperature: 0});
        events.push("long prompt answered");
        await stream;
        expect(events).toEqual(["long prompt answered", "stream done"]);
    });
});
