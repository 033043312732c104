import {describe, expect, it} from "vitest";
import {z} from "zod";
import {BadRequestError} from "../../../src/errors.js";
import {chatCompletionRequestSchema} from "../../../src/api/openai-chat/chatCompletionRequest.js";
import {parseBody} from "../../../src/api/parseBody.js";
import {openAiErrorBody} from "../../../src/api/openai-shared/openAiErrors.js";
import {thrownError} from "../support/thrownError.js";

const failure = (schema: z.ZodType, body: unknown) => thrownError(BadRequestError, () => parseBody(schema, body));

describe("parseBody", () => {
    it("returns the parsed value of a valid body", () => {
        const schema = z.object({a: z.number()});
        expect(parseBody(schema, {a: 1, extra: true})).toEqual({a: 1});
    });

    it.each([null, undefined, "text", 42, true, [], [{a: 1}]])("refuses a body that is not a JSON object: %j", (body) => {
        const error = failure(z.object({}), body);
        expect(error.status).toBe(400);
        expect(error.message).toMatch(/JSON object/);
        expect(error.param).toBeNull();
    });

    it("names a missing required field with missing_required_parameter", () => {
        const error = failure(chatCompletionRequestSchema, {messages: [{role: "user", content: "hi"}]});
        expect(openAiErrorBody(error).error).toEqual({
            message: "Missing required parameter: 'model'.",
            type: "invalid_request_error",
            param: "model",
            code: "missing_required_parameter"
        });
    });

    it("writes array indexes and nested keys the way OpenAI does", () => {
        const error = failure(chatCompletionRequestSchema, {model: "m", messages: [{role: "user", content: "ok"}, {role: "robot", content: "x"}]});
        expect(error.param).toBe("messages[1].role");
        expect(error.code).toBe("invalid_value");

        const nested = z.object({a: z.object({b: z.array(z.object({c: z.string()}))})});
        const deep = failure(nested, {a: {b: [{c: "x"}, {c: 5}]}});
        expect(deep.param).toBe("a.b[1].c");
        expect(deep.message).toContain("'a.b[1].c'");
    });

    it("reports a missing field deep inside a message by its path", () => {
        const error = failure(chatCompletionRequestSchema, {model: "m", messages: [{role: "tool", content: "42"}]});
        expect(error).toMatchObject({param: "messages[0].tool_call_id", code: "missing_required_parameter"});
    });

    it("reports a wrongly typed value as invalid_value, not as missing", () => {
        const error = failure(chatCompletionRequestSchema, {model: 7, messages: [{role: "user", content: "hi"}]});
        expect(error).toMatchObject({param: "model", code: "invalid_value"});
    });

    it("reports only the first problem", () => {
        const error = failure(chatCompletionRequestSchema, {messages: [], temperature: 9});
        expect(error.param).toBe("messages");
    });
});
