// Fields of the wrong type that a fuzzer found accepted, or refused without naming the field: each a 400 that names it.
import http from "node:http";
import type {AddressInfo} from "node:net";
import request from "supertest";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf, MODEL} from "./support/testApp.js";

const {app} = createTestApp();

describe("a field of the wrong type is a 400 naming it", () => {
    it.each([
        ["/v1/chat/completions", chatRequest({user: 5}), "user"],
        ["/v1/completions", {model: MODEL, prompt: "hi", user: {id: 1}}, "user"],
        ["/v1/responses", {model: MODEL, input: "hi", user: ["me"]}, "user"],
        ["/v1/chat/completions", chatRequest({messages: [
            {role: "user", content: "hi"},
            {role: "assistant", content: null, tool_calls: [{id: "call_1", type: "function", function: {name: "f", arguments: "{}"}}]},
            {role: "tool", content: "42", tool_call_id: 1}
        ]}), "messages[2].tool_call_id"],
        ["/v1/responses", {model: MODEL, input: [{type: "function_call_output", call_id: 1, output: "42"}]}, "input[0].call_id"],
        ["/v1/responses", {model: MODEL, input: [{type: "function_call", call_id: "c", name: "f", arguments: {}}]}, "input[0].arguments"]
    ])("%s: %j → param %s", async (path, body, param) => {
        const res = await request(app).post(path).send(body);
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", param, code: "invalid_value"});
    });

    it.each([
        [{model: MODEL, max_tokens: 8, messages: [{role: "user", content: [{type: "tool_result", tool_use_id: 1, content: "42"}]}]}, "messages[0].content[0].tool_use_id"],
        [{model: MODEL, max_tokens: 8, metadata: {user_id: 5}, messages: [{role: "user", content: "hi"}]}, "metadata.user_id"]
    ])("/v1/messages: %j → names %s in Anthropic's envelope", async (body, param) => {
        const res = await request(app).post("/v1/messages").send(body);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({type: "error", error: {type: "invalid_request_error", message: expect.stringContaining(`'${param}'`)}});
    });
});

describe("JSON that is not valid UTF-8", () => {
    // supertest would send a Buffer as JSON of its own: these bytes go as they are.
    const server = http.createServer(app);
    beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)));
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const post = async (path: string, body: Buffer) => {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, {method: "POST", headers: {"Content-Type": "application/json"}, body});
        return {status: res.status, body: await res.json() as unknown};
    };
    const withBadByte = (json: string) => {
        const [before = "", after = ""] = json.split("@");
        return Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28]), Buffer.from(after)]);
    };

    it("is a 400 naming the field, not a prompt quietly changed to U+FFFD", async () => {
        const res = await post("/v1/chat/completions", withBadByte(`{"model": "${MODEL}", "messages": [{"role": "user", "content": "caf@"}]}`));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "messages[0].content", code: "invalid_encoding"});
    });

    it("is a 400 in Anthropic's envelope on /v1/messages", async () => {
        const res = await post("/v1/messages", withBadByte(`{"model": "${MODEL}", "max_tokens": 8, "system": "@", "messages": []}`));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({type: "error", error: {type: "invalid_request_error", message: expect.stringContaining("'system'")}});
    });

    it("leaves UTF-8 text alone", async () => {
        const res = await post("/v1/chat/completions", Buffer.from(JSON.stringify(chatRequest({messages: [{role: "user", content: "café ✓ 🙂"}]}))));
        expect(res.status).toBe(200);
    });
});

describe("a legacy completions prompt list", () => {
    it("of more than 128 prompts is a 400 naming prompt, before a model is loaded or a sequence taken", async () => {
        const t = createTestApp();
        for (const count of [129, 1000]) {
            const res = await request(t.app).post("/v1/completions").send({model: MODEL, prompt: Array.from({length: count}, (_, index) => `prompt ${index}`)});
            expect(res.status).toBe(400);
            expect(errorOf(res.body)).toMatchObject({param: "prompt", code: "invalid_value"});
            expect(errorOf(res.body).message).toContain(`${count} prompts`);
        }
        expect(t.loads()).toBe(0);
    });

    it("of 128 prompts is served, one choice each", async () => {
        const res = await request(app).post("/v1/completions").send({model: MODEL, prompt: Array.from({length: 128}, (_, index) => `prompt ${index}`), max_tokens: 2});
        expect(res.status).toBe(200);
        expect(res.body.choices).toHaveLength(128);
    });
});
