import {describe, expect, it} from "vitest";
import type {BadRequestError} from "../../../../src/errors.js";
import {completionRequestSchema} from "../../../../src/api/openai-completions/completionRequest.js";
import {rejectUnsupportedCompletionFields} from "../../../../src/api/openai-completions/unsupportedFields.js";

describe("rejectUnsupportedCompletionFields", () => {
    const rejectionOf = (extra: Record<string, unknown>) => {
        try {
            rejectUnsupportedCompletionFields(completionRequestSchema.parse({model: "m", prompt: "hi", ...extra}));
            return null;
        } catch (error) {
            return error as BadRequestError;
        }
    };

    it.each([[{best_of: 3}, "best_of"]])("rejects %j with a 400 naming %s", (extra, param) => {
        expect(rejectionOf(extra)).toMatchObject({status: 400, param, code: "unsupported_parameter"});
    });

    it.each([{logprobs: 0}, {logprobs: 5}, {n: 2}, {logprobs: null}, {n: 1}, {best_of: 1}, {echo: true}, {}])("accepts %j", (extra) => {
        expect(rejectionOf(extra)).toBeNull();
    });
});
