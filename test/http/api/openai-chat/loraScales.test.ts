// llama-server's per-request LoRA scales (`lora: [{id, scale}]`) on chat and legacy completions:
// what reaches the engine (each adapter's scale, the ones not named off), and the 400s in OpenAI's
// envelope for bad shapes and for ids the model has no adapter for. The engine's side (one adapter
// set at a time, caches kept apart) is test/e2e/models/loraScales.test.ts.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf, MODEL} from "../../support/testApp.js";

function withAdapters() {
    const t = createTestApp();
    t.model.loraAdapters = [{path: "/models/style.gguf", scale: 1}, {path: "/models/domain.gguf", scale: 0.5}];
    return t;
}

describe("a request's lora scales", () => {
    it("reach the engine as each adapter's scale, the adapters not named at 0; none, null or [] leave the model's own", async () => {
        const t = withAdapters();
        await request(t.app).post("/v1/chat/completions").send(chatRequest({lora: [{id: 1, scale: 0.25}]})).expect(200);
        await request(t.app).post("/v1/chat/completions").send(chatRequest({lora: [{id: 0, scale: -1.5}, {id: 1, scale: 2}], stream: true})).expect(200);
        await request(t.app).post("/v1/completions").send({model: MODEL, prompt: "Hi", lora: [{id: 0, scale: 0}]}).expect(200);
        await request(t.app).post("/v1/chat/completions").send(chatRequest({lora: []})).expect(200);
        await request(t.app).post("/v1/chat/completions").send(chatRequest({lora: null})).expect(200);
        await request(t.app).post("/v1/chat/completions").send(chatRequest()).expect(200);
        expect(t.model.leaseLoraScales).toEqual([[0, 0.25], [-1.5, 2], [0, 0], [1, 0.5], undefined, undefined]);
    });

    it.each([
        [[{id: 2, scale: 1}], "lora[0].id", /no LoRA adapter 2; this model's are 0 to 1/],
        [[{id: 0, scale: 1}, {id: 7, scale: 1}], "lora[1].id", /no LoRA adapter 7/],
        [[{id: -1, scale: 1}], "lora[0].id", /./],
        [[{id: 0.5, scale: 1}], "lora[0].id", /./],
        [[{id: 0}], "lora[0].scale", /./],
        [[{id: 0, scale: "1"}], "lora[0].scale", /./],
        [[{id: 0, scale: 9}], "lora[0].scale", /./],
        [{id: 0, scale: 1}, "lora", /list of \{id, scale\}/],
        ["0:1", "lora", /list of \{id, scale\}/]
    ])("refuses %j with a 400 naming %s, on chat and on completions, before anything is generated", async (lora, param, message) => {
        const t = withAdapters();
        for (const [path, body] of [["/v1/chat/completions", chatRequest({lora})], ["/v1/completions", {model: MODEL, prompt: "Hi", lora}]] as const) {
            const res = await request(t.app).post(path).send(body);
            expect(res.status).toBe(400);
            const error = errorOf(res.body);
            expect(error).toMatchObject({type: "invalid_request_error", param});
            expect(error.message).toMatch(message);
        }
        expect(t.model.generations).toHaveLength(0);
        expect(t.model.activeLeases).toBe(0);
    });

    it("names the model's lack of adapters when it has none", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({lora: [{id: 0, scale: 1}]}));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "lora[0].id", code: "invalid_value", message: expect.stringContaining("has no LoRA adapters")});
        await request(t.app).post("/v1/chat/completions").send(chatRequest({lora: []})).expect(200);
    });
});
