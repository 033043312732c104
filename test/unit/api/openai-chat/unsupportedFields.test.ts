import {describe, expect, it} from "vitest";
import {BadRequestError} from "../../../../src/errors.js";
import {chatCompletionRequestSchema} from "../../../../src/api/openai-chat/chatCompletionRequest.js";
import {rejectUnsupportedChatFields} from "../../../../src/api/openai-chat/unsupportedFields.js";

const request = (extra: Record<string, unknown>) =>
    chatCompletionRequestSchema.parse({model: "m", messages: [{role: "user", content: "hi"}], ...extra});

function rejection(extra: Record<string, unknown>): BadRequestError | null {
    try {
        rejectUnsupportedChatFields(request(extra));
        return null;
    } catch (error) {
        expect(error).toBeInstanceOf(BadRequestError);
        return error as BadRequestError;
    }
}

describe("rejectUnsupportedChatFields", () => {
    it.each([
        [{functions: [{name: "f"}]}, "functions"],
        [{function_call: {name: "f"}}, "function_call"],
        [{modalities: ["text", "audio"]}, "modalities"]
    ])("rejects %j with a 400 naming %s", (extra, param) => {
        const error = rejection(extra);
        expect(error).toMatchObject({status: 400, param, code: "unsupported_parameter"});
        expect(error!.message).toContain(param);
    });

    it("rejects stream_options without stream", () => {
        expect(rejection({stream_options: {include_usage: true}})).toMatchObject({status: 400, param: "stream_options"});
        expect(rejection({stream: false, stream_options: {include_usage: true}})?.param).toBe("stream_options");
        expect(rejection({stream: true, stream_options: {include_usage: true}})).toBeNull();
    });

    it("asks for logprobs before top_logprobs, as OpenAI does", () => {
        expect(rejection({top_logprobs: 3})).toMatchObject({status: 400, param: "top_logprobs", code: "invalid_value"});
        expect(rejection({logprobs: true, top_logprobs: 3})).toBeNull();
    });

    it.each([
        {n: 2}, {logprobs: true}, {logit_bias: {"50256": -100}},
        {n: 1}, {n: null}, {logprobs: false}, {top_logprobs: 0}, {logit_bias: {}}, {response_format: {type: "text"}},
        {chat_template_kwargs: {enable_thinking: false}}, {chat_template_kwargs: {}}, {chat_template_kwargs: {custom_instructions: "x"}},
        {tools: []}, {tool_choice: "none"}, {tool_choice: "auto"}, {functions: []}, {function_call: "auto"},
        {modalities: ["text"]}, {}
    ])("accepts what it serves, and values that ask for the default behaviour: %j", (extra) => {
        expect(rejection(extra)).toBeNull();
    });
});
