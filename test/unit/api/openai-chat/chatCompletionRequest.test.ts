import {describe, expect, it} from "vitest";
import {chatCompletionRequestSchema} from "../../../../src/api/openai-chat/chatCompletionRequest.js";

const base = {model: "m", messages: [{role: "user", content: "hi"}]};
const parse = (extra: Record<string, unknown>) => chatCompletionRequestSchema.safeParse({...base, ...extra});
/** The path and message of the first issue, or null when the body is valid. */
function firstIssue(extra: Record<string, unknown>): {path: string, message: string} | null {
    const result = parse(extra);
    if (result.success)
        return null;
    const issue = result.error.issues[0]!;
    return {path: issue.path.map(String).join("."), message: issue.message};
}

describe("chatCompletionRequestSchema", () => {
    it("accepts every OpenAI role", () => {
        const messages = [
            {role: "system", content: "s"},
            {role: "developer", content: "d"},
            {role: "user", content: [{type: "text", text: "u"}]},
            {role: "assistant", content: null, tool_calls: [{id: "c1", type: "function", function: {name: "f", arguments: "{}"}}]},
            {role: "tool", content: "r", tool_call_id: "c1"}
        ];
        expect(parse({messages}).success).toBe(true);
    });

    it("refuses an unknown role with a message listing the valid ones", () => {
        expect(firstIssue({messages: [{role: "wizard", content: "x"}]})).toEqual({
            path: "messages.0.role",
            message: "role must be one of system, developer, user, assistant, tool"
        });
    });

    it("refuses empty messages", () => {
        expect(firstIssue({messages: []})).toEqual({path: "messages", message: "messages must contain at least one message"});
    });

    it("refuses content that is neither a string nor parts", () => {
        expect(firstIssue({messages: [{role: "user", content: 3}]})?.path).toBe("messages.0.content");
    });

    it.each([
        ["temperature", 0, true], ["temperature", 2, true], ["temperature", -0.1, false], ["temperature", 2.1, false],
        ["top_p", 0, true], ["top_p", 1, true], ["top_p", 1.01, false], ["top_p", -1, false],
        ["presence_penalty", -2, true], ["presence_penalty", 2, true], ["presence_penalty", 2.5, false],
        ["frequency_penalty", -2.01, false], ["frequency_penalty", 1.5, true],
        ["max_tokens", 1, true], ["max_tokens", 0, false], ["max_tokens", 1.5, false],
        ["max_completion_tokens", 0, false], ["n", 0, false], ["seed", 1.5, false], ["seed", -7, true],
        // Python's 2**63 - 1, as JSON.parse reads it: past 2^53, but a whole number.
        ["seed", JSON.parse("9223372036854775807"), true]
    ])("%s = %s valid: %s", (field, value, valid) => {
        const issue = firstIssue({[field]: value});
        if (valid)
            expect(issue).toBeNull();
        else
            expect(issue?.path).toBe(field);
    });

    it("takes stop as a string or an array of strings", () => {
        expect(parse({stop: "END"}).data?.stop).toBe("END");
        expect(parse({stop: ["a", "b"]}).data?.stop).toEqual(["a", "b"]);
        expect(parse({stop: 5}).success).toBe(false);
        expect(parse({stop: [1]}).success).toBe(false);
    });

    it("strips unknown fields, at the top level and in messages", () => {
        const result = parse({user: "me", store: true, metadata: {a: 1}, messages: [{role: "user", content: "hi", extra: 1}]});
        expect(result.success).toBe(true);
        // `user` is known (a string, checked), the rest is not.
        expect(result.data).toEqual({model: "m", user: "me", messages: [{role: "user", content: "hi"}]});
    });

    it("accepts null for optional fields (clients send null for 'not set')", () => {
        const nulls = Object.fromEntries(["frequency_penalty", "logit_bias", "logprobs", "max_completion_tokens", "max_tokens", "n",
            "presence_penalty", "response_format", "seed", "stop", "stream", "stream_options", "temperature", "top_p", "tools",
            "top_logprobs", "functions", "modalities"].map((field) => [field, null]));
        expect(parse(nulls).success).toBe(true);
        expect(parse({messages: [{role: "assistant", content: null, refusal: null, tool_calls: null}]}).success).toBe(true);
        expect(parse({stream: true, stream_options: {include_usage: null}}).success).toBe(true);
    });

    it("requires a non-empty model", () => {
        expect(firstIssue({model: ""})?.path).toBe("model");
    });
});
