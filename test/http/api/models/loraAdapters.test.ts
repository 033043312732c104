// llama-server's GET /lora-adapters over chatserve.json's adapters: which model's (by ?model=, or
// the one that has any), each with its id and default scale; POST, which would change every
// client's scales, is a 400 saying where they are set.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {parseSettingsFile} from "../../../../src/models/modelSettings.js";
import {descriptor, FakeLoader} from "../../support/fakeEngine.js";
import {createTestApp, errorOf} from "../../support/testApp.js";

function appWithAdapters(models: Record<string, unknown>) {
    const t = createTestApp({loader: new FakeLoader(), descriptors: [descriptor("chat-a"), descriptor("chat-b"), descriptor("embedder", {capabilities: ["embeddings"]})]});
    t.registry.applySettings({table: parseSettingsFile(JSON.stringify({models})), templates: new Map()});
    return t;
}

describe("GET /lora-adapters", () => {
    it("lists the model's adapters with their ids and default scales, by ?model= or as the one model that has any", async () => {
        const t = appWithAdapters({"chat-a": {lora: [{path: "/models/style.gguf"}, {path: "/models/domain.gguf", scale: 0.5}]}});
        const expected = [{id: 0, path: "/models/style.gguf", scale: 1}, {id: 1, path: "/models/domain.gguf", scale: 0.5}];
        expect((await request(t.app).get("/lora-adapters").query({model: "chat-a"}).expect(200)).body).toEqual(expected);
        expect((await request(t.app).get("/lora-adapters").expect(200)).body).toEqual(expected);
        expect((await request(t.app).get("/lora-adapters").query({model: "chat-b"}).expect(200)).body).toEqual([]);
    });

    it("answers an empty list when no model has adapters, as llama-server does without --lora", async () => {
        const t = appWithAdapters({});
        expect((await request(t.app).get("/lora-adapters").expect(200)).body).toEqual([]);
    });

    it("asks which model when several have adapters, and answers 404 for a model the folder lacks", async () => {
        const t = appWithAdapters({"chat-*": {lora: [{path: "/models/style.gguf"}]}});
        const several = await request(t.app).get("/lora-adapters").expect(400);
        expect(errorOf(several.body)).toMatchObject({param: "model", message: expect.stringContaining("chat-a, chat-b")});
        const missing = await request(t.app).get("/lora-adapters").query({model: "nope"}).expect(404);
        expect(errorOf(missing.body).code).toBe("model_not_found");
    });
});

describe("POST /lora-adapters", () => {
    it("is a 400 saying where default scales are set (chatserve.json) and how a request sets its own (lora)", async () => {
        const t = appWithAdapters({"chat-a": {lora: [{path: "/models/style.gguf"}]}});
        const res = await request(t.app).post("/lora-adapters").send([{id: 0, scale: 0.2}]).expect(400);
        expect(errorOf(res.body)).toMatchObject({code: "unsupported_parameter", message: expect.stringMatching(/chatserve\.json.*"lora"/)});
    });
});
