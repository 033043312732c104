import {describe, expect, it} from "vitest";
import {chatCompletion, chatCompletionChunk, contentChunkJson, usageChunk} from "../../../../src/api/openai-chat/chatCompletionFormat.js";
import {newReplyIdentity, toFinishReason, toUsage} from "../../../../src/api/openai-shared/replyFields.js";
import type {GenerationResult} from "../../../../src/engine/generationEvents.js";

const result: GenerationResult = {finishReason: "stop", promptTokens: 12, cachedTokens: 4, completionTokens: 30};
const identity = {id: "chatcmpl-abc", created: 1_700_000_000, model: "m"};

describe("chatCompletionFormat", () => {
    it("newReplyIdentity: a chatcmpl- id, a unique one each time, created in whole seconds", () => {
        const a = newReplyIdentity("m");
        const b = newReplyIdentity("m");
        expect(a.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/);
        expect(a.id).not.toBe(b.id);
        expect(Number.isInteger(a.created)).toBe(true);
        expect(a.created).toBeLessThanOrEqual(Date.now() / 1000);
        expect(a.model).toBe("m");
        expect(newReplyIdentity("m", "cmpl").id).toMatch(/^cmpl-/);
    });

    it("toUsage sums prompt and completion tokens and reports cached ones", () => {
        expect(toUsage(result)).toEqual({prompt_tokens: 12, completion_tokens: 30, total_tokens: 42, prompt_tokens_details: {cached_tokens: 4}});
    });

    it("toUsage reports a prediction's accepted and rejected tokens in completion_tokens_details, beside the reasoning tokens", () => {
        expect(toUsage({...result, prediction: {accepted: 25, rejected: 3}}).completion_tokens_details)
            .toEqual({reasoning_tokens: 0, accepted_prediction_tokens: 25, rejected_prediction_tokens: 3});
        expect(toUsage({...result, reasoningTokens: 7, prediction: {accepted: 0, rejected: 9}}).completion_tokens_details)
            .toEqual({reasoning_tokens: 7, accepted_prediction_tokens: 0, rejected_prediction_tokens: 9});
        // Drafts from lookup are the server's business: no prediction, no prediction fields.
        expect(toUsage({...result, drafts: {lookup: {drafted: 10, accepted: 4}}}).completion_tokens_details).toBeUndefined();
    });

    it("toFinishReason maps the engine's reasons to OpenAI's", () => {
        expect(toFinishReason("stop")).toBe("stop");
        expect(toFinishReason("length")).toBe("length");
        expect(toFinishReason("toolCalls")).toBe("tool_calls");
        expect(toFinishReason("abort")).toBe("stop");
    });

    it("chatCompletion: one assistant choice, the finish reason and usage", () => {
        expect(chatCompletion(identity, {content: "Hi!", toolCalls: []}, {...result, finishReason: "length"})).toEqual({
            id: "chatcmpl-abc",
            object: "chat.completion",
            created: 1_700_000_000,
            model: "m",
            system_fingerprint: "chatserve",
            choices: [{index: 0, message: {role: "assistant", content: "Hi!", refusal: null}, logprobs: null, finish_reason: "length"}],
            usage: {prompt_tokens: 12, completion_tokens: 30, total_tokens: 42, prompt_tokens_details: {cached_tokens: 4}}
        });
    });

    it("chatCompletion: content is null for a reply that could only be calls, even one cut before its first call", () => {
        const cut = chatCompletion(identity, {content: "", toolCalls: [], opensWithCall: true}, {...result, finishReason: "length"});
        expect(cut.choices[0]!.message).toEqual({role: "assistant", content: null, refusal: null});
        expect(chatCompletion(identity, {content: "", toolCalls: []}, result).choices[0]!.message.content).toBe("");
    });

    it("chatCompletionChunk carries the identity, the delta and the finish reason", () => {
        const chunk = chatCompletionChunk(identity, {content: "He"}, null, false);
        expect(chunk).toEqual({
            ...identity,
            object: "chat.completion.chunk",
            system_fingerprint: "chatserve",
            choices: [{index: 0, delta: {content: "He"}, logprobs: null, finish_reason: null}]
        });
        expect(chatCompletionChunk(identity, {}, "stop", false).choices[0]).toMatchObject({delta: {}, finish_reason: "stop"});
    });

    it("chatCompletionChunk has usage: null only when usage was asked for", () => {
        expect(chatCompletionChunk(identity, {content: "x"}, null, true)).toHaveProperty("usage", null);
        expect(chatCompletionChunk(identity, {content: "x"}, null, false)).not.toHaveProperty("usage");
    });

    it("usageChunk has no choices and the usage", () => {
        expect(usageChunk(identity, result)).toEqual({
            ...identity,
            object: "chat.completion.chunk",
            system_fingerprint: "chatserve",
            choices: [],
            usage: toUsage(result)
        });
    });

    it("contentChunkJson: the same bytes as serialising each text chunk, whatever the text or the model's name", () => {
        const texts = ["", "Hello", " \"quoted\" \\ back", "line\nbreak\ttab", "\u0000\u001f control", "naïve 日本 🎉", "\ud800 lone"];
        for (const includeUsage of [false, true])
            for (const model of ["m", "a \"tricky\" \u0000chatserve content\u0000 name"]) {
                const chunkIdentity = {...identity, model};
                const json = contentChunkJson(chunkIdentity, includeUsage);
                for (const text of texts)
                    expect(json(text)).toBe(JSON.stringify(chatCompletionChunk(chunkIdentity, {content: text}, null, includeUsage)));
            }
    });
});
