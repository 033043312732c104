import {afterAll, beforeAll, describe, expect, it} from "vitest";
import OpenAI from "openai";
import {hasSharedModels, sharedModels} from "../support/sharedModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/** The real GGUF files of ../shared/models: trained text, real tokenizers, real chat templates. */
describe.runIf(hasSharedModels)("real GGUF models from ../shared/models", () => {
    let server: TestServer;
    let client: OpenAI;

    beforeAll(async () => {
        server = await startTestServer({
            stories260K: sharedModels.stories260K,
            "llama-2-tiny-random": sharedModels.llama2TinyRandom,
            "qwen2.5-tools": sharedModels.qwenTools,
            "llama3.2-tools": sharedModels.llama32Tools
        });
        client = server.client();
    });
    afterAll(async () => server?.stop());

    it("stories260K writes real, deterministic text through the fallback template", async () => {
        const request = {model: "stories260K", messages: [{role: "user" as const, content: "Once upon a time"}], max_tokens: 40, temperature: 0};
        const first = await client.chat.completions.create(request);
        const second = await client.chat.completions.create(request);
        const text = first.choices[0]!.message.content!;
        expect(text).toBe(second.choices[0]!.message.content);
        expect(text).toMatch(/\b(the|a|was|and|to)\b/);
        expect(text).not.toContain("\uFFFD");
    });

    it("renders Qwen2.5's own template: a known prompt has llama-server's token count", async () => {
        // Without a system message the template writes its default one ("You are Qwen, created by
        // Alibaba Cloud…"), as llama-server --jinja renders it: 30 tokens there too (/apply-template, /tokenize).
        const reply = await client.chat.completions.create({model: "qwen2.5-tools", messages: [{role: "user", content: "Hi"}], max_tokens: 3, temperature: 0});
        expect(reply.usage!.prompt_tokens).toBe(30);
        // A system message takes its place: <|im_start|> system \n Be brief . <|im_end|> \n, then the user turn: 17, as llama-server.
        const withSystem = await client.chat.completions.create({model: "qwen2.5-tools", max_tokens: 3, temperature: 0,
            messages: [{role: "system", content: "Be brief."}, {role: "user", content: "Hi"}]});
        expect(withSystem.usage!.prompt_tokens).toBe(17);
    });

    it("renders Llama 3.2's Jinja template (header tokens, date preamble) and streams through it", async () => {
        const stream = await client.chat.completions.create({model: "llama3.2-tools", messages: [{role: "user", content: "Hi"}],
            max_tokens: 4, temperature: 0, stream: true, stream_options: {include_usage: true}});
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream)
            usage = chunk.usage ?? usage;
        // BOS + system header with the knowledge-cutoff preamble + user turn + assistant header: well over the 9 of ChatML.
        expect(usage!.prompt_tokens).toBeGreaterThan(20);
        expect(usage!.completion_tokens).toBeLessThanOrEqual(4);
    });

    it("counts usage with a real 32k vocabulary and passes unicode through intact", async () => {
        const request = {model: "llama-2-tiny-random", messages: [{role: "user" as const, content: "héllo wörld 👋 日本語"}], max_tokens: 16, temperature: 0};
        const plain = await client.chat.completions.create(request);
        const stream = await client.chat.completions.create({...request, stream: true, stream_options: {include_usage: true}});
        let content = "";
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) {
            content += chunk.choices[0]?.delta.content ?? "";
            usage = chunk.usage ?? usage;
        }
        expect(content).toBe(plain.choices[0]!.message.content);
        expect(usage!.prompt_tokens).toBe(plain.usage!.prompt_tokens);
        expect(usage!.completion_tokens).toBe(plain.usage!.completion_tokens);
    });

    it("reuses the whole conversation on a follow-up turn, the reply as sampled included, and reports it as cached_tokens", async () => {
        const system = {role: "system" as const, content: "Lily and Tom like to play in the park. ".repeat(5)};
        const question = {role: "user" as const, content: "Tell me a story about a dog."};
        const first = await client.chat.completions.create({model: "stories260K", messages: [system, question], max_tokens: 40, temperature: 0});
        expect(first.choices[0]!.finish_reason).toBe("length");
        const followUp = await client.chat.completions.create({model: "stories260K", max_tokens: 4, temperature: 0, messages: [
            system, question, {role: "assistant", content: first.choices[0]!.message.content!}, {role: "user", content: "And then?"}
        ]});
        // Everything but the reply's last token, which was sampled and never fed back, is in the cache.
        expect(followUp.usage!.prompt_tokens_details!.cached_tokens).toBe(first.usage!.prompt_tokens + first.usage!.completion_tokens - 1);
    });

    it("keeps a conversation's cache when a one-off question comes in between (it goes to the other sequence)", async () => {
        const system = {role: "system" as const, content: "Tim had a red ball. He liked to throw it high. ".repeat(5)};
        const question = {role: "user" as const, content: "What did Tim do next?"};
        const first = await client.chat.completions.create({model: "stories260K", messages: [system, question], max_tokens: 20, temperature: 0});
        // It shares only the template's first tokens with the conversation: a sequence of its own, not the conversation's.
        await client.chat.completions.create({model: "stories260K", max_tokens: 4, temperature: 0,
            messages: [{role: "user", content: "Once upon a time there was a big cat who lived in a small house by the sea."}]});
        const followUp = await client.chat.completions.create({model: "stories260K", max_tokens: 4, temperature: 0, messages: [
            system, question, {role: "assistant", content: first.choices[0]!.message.content!}, {role: "user", content: "And then?"}
        ]});
        expect(followUp.usage!.prompt_tokens_details!.cached_tokens).toBe(first.usage!.prompt_tokens + first.usage!.completion_tokens - 1);
    });
});
