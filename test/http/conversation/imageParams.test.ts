// An image part refused by the chat path is named by the field the client sent, on each API:
// Anthropic's block (past tool results split into messages of their own) and Responses' image_url.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {createTestApp, MODEL} from "../support/testApp.js";

const png = "data:image/png;base64,iVBORw0KGgo=";

describe("image part errors name the request's own field", () => {
    it("/v1/messages: the image block's source, counted in the Messages request", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/messages").send({model: MODEL, max_tokens: 5, messages: [
            {role: "user", content: "read it"},
            {role: "assistant", content: [{type: "tool_use", id: "t1", name: "read", input: {}}]},
            {role: "user", content: [{type: "tool_result", tool_use_id: "t1", content: "ok"}, {type: "image", source: {type: "base64", media_type: "image/png", data: png.split(",")[1]}}]}
        ]}).expect(400);
        expect(res.body).toMatchObject({type: "error", error: {type: "invalid_request_error", message: expect.stringMatching(/^Invalid 'messages\[2\]\.content\[1\](\.source\.data)?'/)}});
    });

    it("/v1/messages: a media_type that is no image type", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/messages").send({model: MODEL, max_tokens: 5, messages: [
            {role: "user", content: [{type: "image", source: {type: "base64", media_type: "text/plain", data: "aGVsbG8="}}]}
        ]}).expect(400);
        expect(res.body.error.message).toContain("messages[0].content[0].source.media_type: 'text/plain' is not an image type");
    });

    it("/v1/responses: input_image's image_url, and file_id refused", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/responses").send({model: MODEL, input: [
            {role: "user", content: [{type: "input_text", text: "hi"}, {type: "input_image", image_url: png, detail: "low"}]}
        ]}).expect(400);
        expect(res.body.error.param).toMatch(/^input\[0\]\.content\[1\](\.image_url)?$/);
        const byFile = await request(t.app).post("/v1/responses").send({model: MODEL, input: [
            {role: "user", content: [{type: "input_image", file_id: "file-123"}]}
        ]}).expect(400);
        expect(byFile.body.error).toMatchObject({param: "input[0].content[0].file_id", code: "invalid_value"});
    });
});
