import request from "supertest";
import {describe, expect, it} from "vitest";
import {descriptor, FakeLoader} from "../../support/fakeEngine.js";
import {createTestApp, errorOf} from "../../support/testApp.js";

// Loading and unloading over HTTP: the load/unload endpoints, the keep_alive field on every
// endpoint, and the statuses that memory decides (400 model_too_large, 503 insufficient_memory).

function sizedApp(options: Parameters<typeof createTestApp>[0] = {}) {
    const loader = new FakeLoader();
    const descriptors = [
        descriptor("chat-a", {sizeBytes: 400, capabilities: ["chat", "completion", "tools"]}),
        descriptor("sub/chat-b", {sizeBytes: 400}),
        descriptor("embedder", {sizeBytes: 100, architecture: "bert", capabilities: ["embeddings"]}),
        descriptor("huge", {sizeBytes: 5000})
    ];
    return {loader, ...createTestApp({descriptors, loader, memory: {bytes: 1000, waitMs: 50}, ...options})};
}

describe("POST /v1/models/{id}/load and /unload", () => {
    it("loads a model before its first request and answers with its entry; unloads it on request", async () => {
        const t = sizedApp();
        const loaded = await request(t.app).post("/v1/models/chat-a/load").expect(200);
        expect(loaded.body).toMatchObject({id: "chat-a", object: "model", status: "loaded", loaded: true, loading: false, active_requests: 0, memory_bytes: 400});
        expect(t.loader.events).toEqual(["load chat-a"]);

        await request(t.app).post("/v1/chat/completions").send({model: "chat-a", messages: [{role: "user", content: "hi"}]}).expect(200);
        expect(t.loader.events).toEqual(["load chat-a"]);

        const unloaded = await request(t.app).post("/v1/models/chat-a/unload").expect(200);
        expect(unloaded.body).toMatchObject({id: "chat-a", status: "available", loaded: false, unloading: false});
        expect(t.loader.events).toEqual(["load chat-a", "unload chat-a"]);
    });

    it("takes ids with a slash, and a keep_alive for the loaded model", async () => {
        const t = sizedApp();
        const res = await request(t.app).post("/v1/models/sub/chat-b/load").send({keep_alive: "10m"}).expect(200);
        expect(res.body).toMatchObject({id: "sub/chat-b", loaded: true, keep_alive: 600});
        expect(res.body.expires_at).toBeGreaterThan(Date.now() / 1000 + 590);
        await request(t.app).post("/v1/models/sub/chat-b/unload").expect(200);
        expect(t.loader.events).toEqual(["load sub/chat-b", "unload sub/chat-b"]);
    });

    it("answers an unknown model with 404, a bad keep_alive with 400, and any other action with 404", async () => {
        const t = sizedApp();
        const unknown = await request(t.app).post("/v1/models/nope/load").expect(404);
        expect(errorOf(unknown.body)).toMatchObject({code: "model_not_found", param: "model"});
        const bad = await request(t.app).post("/v1/models/chat-a/load").send({keep_alive: "soon"}).expect(400);
        expect(errorOf(bad.body)).toMatchObject({code: "invalid_value", param: "keep_alive"});
        expect(errorOf(bad.body).message).toContain("'soon' is not a duration");
        const action = await request(t.app).post("/v1/models/chat-a/delete").expect(404);
        expect(errorOf(action.body)).toMatchObject({code: "unknown_url"});
        expect(t.loader.events).toEqual([]);
    });

    it("needs the API key like every /v1 route", async () => {
        const t = sizedApp({apiKeys: ["sk-test"]});
        await request(t.app).post("/v1/models/chat-a/load").expect(401);
        await request(t.app).post("/v1/models/chat-a/unload").expect(401);
        await request(t.app).post("/v1/models/chat-a/load").set("Authorization", "Bearer sk-test").expect(200);
    });

    it("refuses a model too big for the budget with a 400 that says so, on load and on a request", async () => {
        const t = sizedApp();
        const load = await request(t.app).post("/v1/models/huge/load").expect(400);
        expect(errorOf(load.body)).toMatchObject({type: "invalid_request_error", code: "model_too_large", param: "model"});
        expect(errorOf(load.body).message).toContain("needs 4.9 KiB of memory");
        const chat = await request(t.app).post("/v1/chat/completions").send({model: "huge", messages: [{role: "user", content: "hi"}]}).expect(400);
        expect(errorOf(chat.body).code).toBe("model_too_large");
        const entry = await request(t.app).get("/v1/models/huge").expect(200);
        expect(entry.body).toMatchObject({status: "unavailable", error: expect.stringContaining("more than the 1000 bytes chatserve may use")});
    });

    it("answers 503 insufficient_memory with Retry-After when busy models hold the memory for longer than a request waits", async () => {
        const t = sizedApp({memory: {bytes: 500, waitMs: 50}});
        t.loader.prepare = (model) => model.script = {pieces: ["slow"], hangUntilAborted: true};
        const busy = request(t.app).post("/v1/chat/completions").send({model: "chat-a", messages: [{role: "user", content: "hi"}]}).timeout(300).catch(() => null);
        // Until the busy request has loaded chat-a (a fixed pause could end first on a slow machine).
        while (!t.loader.events.includes("load chat-a"))
            await new Promise((resolve) => setTimeout(resolve, 5));
        const res = await request(t.app).post("/v1/chat/completions").send({model: "sub/chat-b", messages: [{role: "user", content: "hi"}]}).expect(503);
        expect(res.headers["retry-after"]).toBe("5");
        expect(errorOf(res.body)).toMatchObject({type: "server_error", code: "insufficient_memory", param: "model"});
        expect(errorOf(res.body).message).toContain("'chat-a' (400 bytes, 1 request");
        await busy;
        // The busy reply was never cut by an unload.
        expect(t.loader.model("chat-a").disposedWhileBusy).toBe(false);
    });
});

describe("keep_alive on every endpoint", () => {
    const endpoints: Array<[string, string, Record<string, unknown>]> = [
        ["/v1/chat/completions", "chat-a", {messages: [{role: "user", content: "hi"}]}],
        ["/v1/completions", "chat-a", {prompt: "hi", max_tokens: 2}],
        ["/v1/embeddings", "embedder", {input: "hi"}],
        ["/v1/responses", "chat-a", {input: "hi"}],
        ["/v1/messages", "chat-a", {max_tokens: 8, messages: [{role: "user", content: "hi"}]}]
    ];

    it.each(endpoints)("%s: keep_alive 0 unloads the model once the reply is done", async (path, model, body) => {
        const t = sizedApp();
        await request(t.app).post(path).send({model, ...body, keep_alive: 0}).expect(200);
        await new Promise((resolve) => setImmediate(resolve));
        expect(t.loader.events).toEqual([`load ${model}`, `unload ${model}`]);
    });

    it.each(endpoints)("%s: a keep_alive that is no duration is a 400 naming it", async (path, model, body) => {
        const t = sizedApp();
        const res = await request(t.app).post(path).send({model, ...body, keep_alive: "a while"}).expect(400);
        expect(JSON.stringify(res.body)).toContain("keep_alive");
        expect(t.loader.events).toEqual([]);
    });

    it("keeps the model with a duration, and /v1/models says until when", async () => {
        const t = sizedApp();
        await request(t.app).post("/v1/chat/completions").send({model: "chat-a", messages: [{role: "user", content: "hi"}], keep_alive: "1h"}).expect(200);
        const entry = (await request(t.app).get("/v1/models/chat-a")).body;
        expect(entry).toMatchObject({loaded: true, keep_alive: 3600, active_requests: 0});
        expect(entry.expires_at).toBeGreaterThan(Date.now() / 1000 + 3500);
    });
});
