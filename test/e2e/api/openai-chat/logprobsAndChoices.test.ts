// logprobs, n and logit_bias through the official client on a real model, the logprobs checked
// against a reference computed here from the model's own logits (node-llama-cpp, full vocabulary).
import {getLlama, type LlamaModel, type Token} from "node-llama-cpp";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../../support/sharedModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

/** stories260K is a trained model (clear winners, deterministic at temperature 0); the tiny one is built when ../shared is absent. */
const modelFile = async () => hasSharedModels ? sharedModels.stories260K : buildTinyChatModel();

describe("logprobs, n and logit_bias", () => {
    let server: TestServer;
    let reference: LlamaModel;
    const model = "m";
    const prompt = "Once upon a time";

    beforeAll(async () => {
        const file = await modelFile();
        server = await startTestServer({[model]: file}, {parallel: 2, ctxSize: 512});
        reference = await (await getLlama({gpu: false})).loadModel({modelPath: file});
    });
    afterAll(async () => {
        await server?.stop();
        await reference?.dispose();
    });

    /** The log-softmax of the raw logits after `tokens`, over the whole vocabulary. */
    const referenceLogprobs = async (tokens: Token[]): Promise<Map<Token, number>> => {
        const context = await reference.createContext({contextSize: 256});
        try {
            const sequence = context.getSequence();
            const items = tokens.map((token, index) => index === tokens.length - 1
                ? [token, {generateNext: {logits: true as const, options: {temperature: 0}}}] as const
                : token);
            const outputs = await sequence.controlledEvaluate(items as never);
            const logits = outputs[tokens.length - 1]!.next!.logits!;
            const max = Math.max(...logits.values());
            const normalizer = max + Math.log([...logits.values()].reduce((sum, logit) => sum + Math.exp(logit - max), 0));
            return new Map([...logits].map(([token, logit]) => [token, logit - normalizer]));
        } finally {
            await context.dispose();
        }
    };

    const chat = (extra: object) => server.client().chat.completions.create({
        model, messages: [{role: "user", content: prompt}], max_tokens: 8, temperature: 0, ...extra, stream: false
    });

    it("reports each token's logprob with sorted top_logprobs, the greedy token first, in OpenAI's shape", async () => {
        const completion = await chat({logprobs: true, top_logprobs: 5});
        const {logprobs} = completion.choices[0]!;
        expect(logprobs!.refusal).toBeNull();
        const content = logprobs!.content!;
        expect(content.length).toBeGreaterThan(0);
        expect(content.map((entry) => entry.token).join("")).toBe(completion.choices[0]!.message.content);
        for (const entry of content) {
            expect(Object.keys(entry)).toEqual(["token", "logprob", "bytes", "top_logprobs"]);
            expect(entry.bytes).toEqual([...Buffer.from(entry.token, "utf8")]);
            expect(entry.top_logprobs).toHaveLength(5);
            const values = entry.top_logprobs.map((top) => top.logprob);
            expect(values).toEqual([...values].sort((a, b) => b - a));
            expect(values.every((value) => value <= 0)).toBe(true);
            expect(values.reduce((sum, value) => sum + Math.exp(value), 0)).toBeLessThanOrEqual(1.0001);
            // Greedy: the chosen token is the likeliest one.
            expect(entry.top_logprobs[0]!.logprob).toBeCloseTo(entry.logprob, 5);
        }
    });

    it("reports the full-vocabulary log-softmax of the raw logits, at any temperature", async () => {
        const tokens = [reference.tokens.bos!, ...reference.tokenize(prompt, false, "trimLeadingSpace")] as Token[];
        const completion = await server.client().completions.create({model, prompt: tokens, max_tokens: 1, temperature: 1.5, seed: 3, logprobs: 5});
        const expected = await referenceLogprobs(tokens);
        const logprobs = completion.choices[0]!.logprobs!;
        const ranked = [...expected].sort((a, b) => b[1] - a[1]).slice(0, 5);
        const top = Object.values(logprobs.top_logprobs![0]!);
        ranked.forEach(([, value], index) => expect(top[index]).toBeCloseTo(value, 3));
        const chosen = [...expected].find(([token]) => reference.detokenize([token], false, reference.tokenize("x", false)) === logprobs.tokens![0]);
        expect(logprobs.token_logprobs![0]).toBeCloseTo(chosen![1], 3);
    });

    it("streams the same logprobs, each chunk carrying its tokens'", async () => {
        const whole = await chat({logprobs: true, top_logprobs: 3});
        const stream = await server.client().chat.completions.create({
            model, messages: [{role: "user", content: prompt}], max_tokens: 8, temperature: 0, logprobs: true, top_logprobs: 3, stream: true
        });
        const streamed = [];
        for await (const chunk of stream) {
            const choice = chunk.choices[0];
            if (choice?.delta.content != null && choice.delta.content !== "")
                expect(choice.logprobs!.content!.map((entry) => entry.token).join("")).toBe(choice.delta.content);
            streamed.push(...choice?.logprobs?.content ?? []);
        }
        expect(streamed).toEqual(whole.choices[0]!.logprobs!.content);
    });

    it("answers without logprobs as before: logprobs null", async () => {
        expect((await chat({})).choices[0]!.logprobs).toBeNull();
        await expect(chat({top_logprobs: 2})).rejects.toMatchObject({status: 400, param: "top_logprobs"});
        await expect(chat({logprobs: true, top_logprobs: 21})).rejects.toMatchObject({status: 400});
    });

    it("gives n choices of one prompt, alike at temperature 0, the prompt counted once in usage", async () => {
        const one = await chat({});
        const three = await chat({n: 3});
        expect(three.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
        for (const choice of three.choices)
            expect(choice.message.content).toBe(one.choices[0]!.message.content);
        expect(three.usage!.prompt_tokens).toBe(one.usage!.prompt_tokens);
        expect(three.usage!.completion_tokens).toBe(3 * one.usage!.completion_tokens);
        const random = await chat({n: 3, temperature: 1.5, seed: 5, max_tokens: 16});
        expect(new Set(random.choices.map((choice) => choice.message.content)).size).toBeGreaterThan(1);
    });

    it("streams n choices, each chunk naming its choice", async () => {
        const stream = await server.client().chat.completions.create({
            model, messages: [{role: "user", content: prompt}], max_tokens: 6, temperature: 0, n: 2, stream: true, stream_options: {include_usage: true}
        });
        const texts = ["", ""];
        const finished: number[] = [];
        let usage;
        for await (const chunk of stream) {
            for (const choice of chunk.choices) {
                texts[choice.index] += choice.delta.content ?? "";
                if (choice.finish_reason != null)
                    finished.push(choice.index);
            }
            usage = chunk.usage ?? usage;
        }
        expect(finished).toEqual([0, 1]);
        expect(texts[1]).toBe(texts[0]);
        expect(usage!.completion_tokens).toBe(12);
    });

    it("logit_bias -100 bans the token greedy decoding picks; +100 forces one", async () => {
        const tokens = [reference.tokens.bos!, ...reference.tokenize(prompt, false, "trimLeadingSpace")] as Token[];
        const ranked = [...await referenceLogprobs(tokens)].sort((a, b) => b[1] - a[1]).map(([token]) => token);
        const complete = (logit_bias?: Record<string, number>) =>
            server.client().completions.create({model, prompt: tokens, max_tokens: 1, temperature: 0, logprobs: 1, ...(logit_bias == null ? {} : {logit_bias})});
        const greedy = await complete();
        const banned = await complete({[ranked[0]!]: -100});
        expect(banned.choices[0]!.logprobs!.tokens![0]).not.toBe(greedy.choices[0]!.logprobs!.tokens![0]);
        // The reported logprobs are the model's own, unbiased.
        expect(banned.choices[0]!.logprobs!.top_logprobs![0]).toMatchObject(greedy.choices[0]!.logprobs!.top_logprobs![0]!);

        const unlikely = ranked.slice(50).find((token) => /^[a-z]+$/i.test(reference.detokenize([token])))!;
        const forced = await server.client().chat.completions.create({
            model, messages: [{role: "user", content: prompt}], max_tokens: 3, temperature: 0, logit_bias: {[unlikely]: 100}
        });
        expect(forced.choices[0]!.message.content!.trim()).toBe(reference.detokenize([unlikely, unlikely, unlikely], false, reference.tokenize("x", false)).trim());
        await expect(chat({logit_bias: {abc: 1}})).rejects.toMatchObject({status: 400, param: expect.stringContaining("logit_bias")});
        await expect(chat({logit_bias: {[10_000_000]: 1}})).rejects.toMatchObject({status: 400, param: "logit_bias"});
        await expect(chat({logit_bias: {5: 101}})).rejects.toMatchObject({status: 400});
    });

    it("echoes a prompt's logprobs on legacy completions, the first null, offsets from the prompt's start", async () => {
        const tokens = [reference.tokens.bos!, ...reference.tokenize(prompt, false, "trimLeadingSpace")] as number[];
        const completion = await server.client().completions.create({model, prompt: tokens, max_tokens: 2, temperature: 0, logprobs: 2, echo: true});
        const logprobs = completion.choices[0]!.logprobs!;
        expect(logprobs.tokens).toHaveLength(tokens.length + 2);
        expect(logprobs.token_logprobs![0]).toBeNull();
        expect(logprobs.top_logprobs![0]).toBeNull();
        const expected = await referenceLogprobs(tokens.slice(0, -1) as Token[]);
        expect(logprobs.token_logprobs![tokens.length - 1]).toBeCloseTo(expected.get(tokens.at(-1)! as Token)!, 3);
        expect(logprobs.text_offset![0]).toBe(0);

        const plain = await server.client().completions.create({model, prompt, max_tokens: 2, temperature: 0, logprobs: 0});
        expect(plain.choices[0]!.logprobs!.text_offset![0]).toBe(prompt.length);
        expect(Object.keys(plain.choices[0]!.logprobs!.top_logprobs![0]!)).toEqual([plain.choices[0]!.logprobs!.tokens![0]]);

        const stream = await server.client().completions.create({
            model, prompt: tokens, max_tokens: 2, temperature: 0, logprobs: 2, echo: true, stream: true
        });
        const streamed: Array<number | null> = [];
        for await (const chunk of stream)
            streamed.push(...chunk.choices[0]?.logprobs?.token_logprobs ?? []);
        expect(streamed).toEqual(logprobs.token_logprobs);
    });

    it("bounds a legacy prompt list times n", async () => {
        await expect(server.client().completions.create({model, prompt: Array(20).fill("a"), n: 10, max_tokens: 1}))
            .rejects.toMatchObject({status: 400, param: "n"});
    });
});
