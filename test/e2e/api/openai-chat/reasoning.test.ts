import {afterAll, beforeAll, describe, expect, it} from "vitest";
import type OpenAI from "openai";
import {buildTinyThinkingModel, THINKING_REPLY, THINKING_SCRIPT} from "../../../fixtures/gguf/thinkingModel.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

/** What chatserve adds to OpenAI's message and delta (llama-server's and DeepSeek's field). */
type WithReasoning = {reasoning_content?: string};

/**
 * A reasoning model's thought comes apart from its answer, as `reasoning_content`: a real server,
 * the official client, and a GGUF (built by the tests) whose template opens a thought in every reply
 * and whose weights script its reply: " think first</think> Hello".
 */
describe("reasoning models", () => {
    let server: TestServer;
    let client: OpenAI;
    const model = "tiny-thinking";
    const question = {role: "user" as const, content: "Say hello."};

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyThinkingModel(), "special-markers": await buildTinyThinkingModel(undefined, {specialMarkers: true})});
        client = server.client();
    });
    afterAll(async () => server?.stop());

    it("answers with the thought in reasoning_content and the answer alone in content", async () => {
        const reply = await client.chat.completions.create({model, messages: [question], max_tokens: 40});
        const message = reply.choices[0]!.message as typeof reply.choices[0]["message"] & WithReasoning;
        expect(message.reasoning_content).toBe(THINKING_REPLY.reasoning);
        expect(message.content).toBe(THINKING_REPLY.content);
        expect(reply.choices[0]!.finish_reason).toBe("stop");
        // Every scripted token but the end of turn; " think", " first" and "</think>" are the thought.
        expect(reply.usage!.completion_tokens).toBe(THINKING_SCRIPT.length - 1);
        expect(reply.usage!.completion_tokens_details).toEqual({reasoning_tokens: 3});
    });

    it("streams the thought as reasoning_content deltas before the answer's content deltas", async () => {
        const stream = await client.chat.completions.create({model, messages: [question], max_tokens: 40, stream: true});
        const kinds: string[] = [];
        let reasoning = "";
        let content = "";
        let finish: string | null = null;
        for await (const chunk of stream) {
            const choice = chunk.choices[0]!;
            const delta = choice.delta as typeof choice.delta & WithReasoning;
            if (delta.reasoning_content != null) {
                reasoning += delta.reasoning_content;
                kinds.push("reasoning");
            }
            if (delta.content != null && delta.content !== "") {
                content += delta.content;
                kinds.push("content");
            }
            finish = choice.finish_reason ?? finish;
        }
        expect({reasoning, content, finish}).toEqual({...THINKING_REPLY, finish: "stop"});
        expect(kinds.indexOf("content")).toBe(kinds.lastIndexOf("reasoning") + 1);
    });

    it("cuts a reply at max_tokens inside its thought with an empty answer", async () => {
        const reply = await client.chat.completions.create({model, messages: [question], max_tokens: 1});
        const message = reply.choices[0]!.message as typeof reply.choices[0]["message"] & WithReasoning;
        expect(reply.choices[0]!.finish_reason).toBe("length");
        expect(message.reasoning_content).toBe("think");
        expect(message.content).toBe("");
        expect(reply.usage!.completion_tokens_details).toEqual({reasoning_tokens: 1});
    });

    it("applies stop sequences to the answer, not the thought", async () => {
        const reply = await client.chat.completions.create({model, messages: [question], max_tokens: 40, stop: ["first", "llo"]});
        const message = reply.choices[0]!.message as typeof reply.choices[0]["message"] & WithReasoning;
        expect(message.reasoning_content).toBe(THINKING_REPLY.reasoning);
        expect(message.content).toBe("He");
    });

    it("takes an earlier turn's reasoning_content back into the conversation, where the template shows it", async () => {
        const withThought = [question, {role: "assistant", content: "Hello", reasoning_content: "think first"}, {role: "user", content: "Again."}];
        const withoutThought = [question, {role: "assistant", content: "Hello"}, {role: "user", content: "Again."}];
        const ask = (messages: unknown[]) => client.chat.completions.create({model, messages: messages as OpenAI.ChatCompletionMessageParam[], max_tokens: 40});
        const [shown, plain] = [await ask(withThought), await ask(withoutThought)];
        expect(shown.choices[0]!.message.content).toBe(THINKING_REPLY.content);
        // `<think>\n`, the thought, `\n</think>\n\n`: this template renders earlier thoughts.
        expect(shown.usage!.prompt_tokens).toBeGreaterThan(plain.usage!.prompt_tokens + 3);
    });

    it("with chat_template_kwargs.enable_thinking false, ends the prompt with an empty thought", async () => {
        const ask = (kwargs: object) => client.chat.completions.create(
            {model, messages: [question], max_tokens: 40, chat_template_kwargs: kwargs} as OpenAI.ChatCompletionCreateParamsNonStreaming);
        const [off, on] = [await ask({enable_thinking: false}), await ask({enable_thinking: true})];
        const message = off.choices[0]!.message as typeof off.choices[0]["message"] & WithReasoning;
        expect(message.reasoning_content).toBeUndefined();
        // The scripted model answers whatever follows a line break the same way, so its answer
        // after the empty thought spells a thought's words and marker: they are the answer now.
        expect(message.content).toBe(" think first</think> Hello");
        expect(off.usage!.completion_tokens_details).toEqual({reasoning_tokens: 0});
        // `\n</think>\n\n` closes the `<think>\n` the prompt ends with when the model thinks.
        expect(off.usage!.prompt_tokens).toBeGreaterThan(on.usage!.prompt_tokens);
    });

    it("opens the thought of the turn after a tool's result too, as the template's new assistant turn", async () => {
        const messages = [
            question,
            {role: "assistant", content: null, tool_calls: [{id: "call_1", type: "function", function: {name: "lookup", arguments: "{}"}}]},
            {role: "tool", tool_call_id: "call_1", content: "42"}
        ] as OpenAI.ChatCompletionMessageParam[];
        const reply = await client.chat.completions.create({model, messages, max_tokens: 40});
        const message = reply.choices[0]!.message as typeof reply.choices[0]["message"] & WithReasoning;
        expect({reasoning: message.reasoning_content, content: message.content}).toEqual(THINKING_REPLY);
    });

    it("continues a reply the client left inside a thought as thought", async () => {
        const messages = [question, {role: "assistant", content: "<think>\nHmm"}] as OpenAI.ChatCompletionMessageParam[];
        const reply = await client.chat.completions.create({model, messages, max_tokens: 40});
        const message = reply.choices[0]!.message as typeof reply.choices[0]["message"] & WithReasoning;
        expect({reasoning: message.reasoning_content, content: message.content}).toEqual(THINKING_REPLY);
    });

    it("reports no reasoning tokens for a reply constrained from its first token", async () => {
        const reply = await client.chat.completions.create({model, messages: [question], max_tokens: 5, response_format: {type: "json_object"}});
        expect(reply.usage!.completion_tokens_details).toEqual({reasoning_tokens: 0});
        expect((reply.choices[0]!.message as WithReasoning).reasoning_content).toBeUndefined();
    });

    it("splits the thought off where its markers are special tokens too (Command R7B's), which detokenize to nothing", async () => {
        const reply = await client.chat.completions.create({model: "special-markers", messages: [question], max_tokens: 40});
        const message = reply.choices[0]!.message as typeof reply.choices[0]["message"] & WithReasoning;
        expect({reasoning: message.reasoning_content, content: message.content}).toEqual({reasoning: THINKING_REPLY.reasoning, content: THINKING_REPLY.content});
    });
});
