// The sampling options a client sends reach llama.cpp's sampler through chatserve's decode loop:
// a seed makes a reply repeatable, and OpenAI's penalties change what greedy decoding picks.
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

describe("sampling options through a real model", () => {
    let server: TestServer;
    const model = "tiny-chat";

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyChatModel()}, {parallel: 2, ctxSize: 1024});
    });
    afterAll(async () => server?.stop());

    const reply = async (options: {temperature: number, seed?: number, frequency_penalty?: number, presence_penalty?: number}) => {
        const completion = await server.client().chat.completions.create({
            model, messages: [{role: "user", content: "Write a long list of words."}], max_tokens: 48, ...options
        });
        return completion.choices[0]!.message.content!;
    };

    it("repeats a reply for the same seed and changes it for another", async () => {
        const first = await reply({temperature: 1, seed: 11});
        expect(await reply({temperature: 1, seed: 11})).toBe(first);
        const others = await Promise.all([12, 13, 14].map((seed) => reply({temperature: 1, seed})));
        expect(others.some((other) => other !== first)).toBe(true);
    });

    it("repeats a reply for any seed: negative ones, and llama.cpp's 'random' value 2^32 - 1", async () => {
        const byNegative = await Promise.all([-1, -2].map((seed) => reply({temperature: 1, seed})));
        expect(await reply({temperature: 1, seed: -1})).toBe(byNegative[0]);
        expect(byNegative[1]).not.toBe(byNegative[0]);
        const top = await reply({temperature: 1, seed: 2 ** 32 - 1});
        expect(await reply({temperature: 1, seed: 2 ** 32 - 1})).toBe(top);
    });

    it("gives requests without a seed replies of their own, also when they arrive together", async () => {
        const replies = await Promise.all([1, 2, 3].map(() => reply({temperature: 1})));
        expect(new Set(replies).size).toBeGreaterThan(1);
    });

    it("changes a greedy reply with a frequency or presence penalty, and not without one", async () => {
        const greedy = await reply({temperature: 0});
        expect(await reply({temperature: 0, frequency_penalty: 0})).toBe(greedy);
        expect(await reply({temperature: 0, frequency_penalty: 2})).not.toBe(greedy);
        expect(await reply({temperature: 0, presence_penalty: 2})).not.toBe(greedy);
    });
});
