// Predicted Outputs' field on the wire: what shapes are taken, what they reach the engine as, and the
// 400s in OpenAI's envelope for bad shapes and for what OpenAI refuses beside a prediction.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf} from "../../support/testApp.js";

describe("POST /v1/chat/completions with a prediction", () => {
    it("hands the engine the prediction's text, from a string or from text parts", async () => {
        const t = createTestApp();
        await request(t.app).post("/v1/chat/completions").send(chatRequest({prediction: {type: "content", content: "def f():\n    return 1\n"}})).expect(200);
        await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({prediction: {type: "content", content: [{type: "text", text: "one "}, {type: "text", text: "two"}]}, stream: true})).expect(200);
        await request(t.app).post("/v1/chat/completions").send(chatRequest({prediction: null})).expect(200);
        expect(t.model.generations.map(({options}) => options.prediction)).toEqual(["def f():\n    return 1\n", "one two", undefined]);
    });

    it.each([
        [{type: "text", content: "x"}, "prediction.type"],
        [{content: "x"}, "prediction.type"],
        [{type: "content"}, "prediction.content"],
        [{type: "content", content: 42}, "prediction.content"],
        [{type: "content", content: [{type: "image_url", image_url: {url: "data:,"}}]}, "prediction.content"],
        [{type: "content", content: [{type: "text"}]}, "prediction.content"],
        ["just text", "prediction"]
    ])("refuses the shape %j with a 400 naming %s", async (prediction, param) => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({prediction}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", param});
        expect(t.model.generations).toHaveLength(0);
    });

    it.each([
        [{n: 2}, "n"],
        [{logprobs: true}, "logprobs"],
        [{tools: [{type: "function", function: {name: "f", parameters: {type: "object"}}}]}, "tools"],
        [{presence_penalty: 0.5}, "presence_penalty"],
        [{frequency_penalty: 1}, "frequency_penalty"]
    ])("refuses a prediction beside %j, as OpenAI does, naming the field", async (fields, param) => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({prediction: {type: "content", content: "x"}, ...fields}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", param, code: "invalid_value"});
        expect(errorOf(res.body).message).toContain("predicted outputs");
    });

    it("takes the values that ask for nothing more beside a prediction (n 1, logprobs false, no tools, penalties of 0 or less)", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({
            prediction: {type: "content", content: "x"}, n: 1, logprobs: false, tools: [], presence_penalty: 0, frequency_penalty: -0.5
        }));
        expect(res.status).toBe(200);
    });
});
