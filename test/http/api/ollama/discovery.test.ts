// Ollama's discovery endpoints over the engine double: what Copilot, Zed and Continue ask first
// (version, tags, show, ps), names with and without `:latest`, and errors in Ollama's envelope.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {CONTEXT_LENGTH, descriptor} from "../../support/fakeEngine.js";
import {createTestApp, MODEL} from "../../support/testApp.js";

describe("Ollama discovery", () => {
    it("GET /api/version is a numeric version at or above what VS Code Copilot requires (0.6.4)", async () => {
        const res = await request(createTestApp().app).get("/api/version").expect(200);
        const [major, minor, patch] = (res.body.version as string).split(".").map(Number);
        expect(major! * 1e6 + minor! * 1e3 + patch!).toBeGreaterThanOrEqual(6004);
        await request(createTestApp().app).head("/api/version").expect(200);
    });

    it("GET / and HEAD / answer 200 without a key, as Ollama's 'is running' check expects", async () => {
        const t = createTestApp({apiKeys: ["secret"]});
        await request(t.app).get("/").expect(200);
        await request(t.app).head("/").expect(200);
    });

    it("GET /api/tags lists the servable models as id:latest with Ollama's details; HEAD answers too", async () => {
        const t = createTestApp();
        const res = await request(t.app).get("/api/tags").expect(200);
        const names = res.body.models.map((model: {name: string}) => model.name);
        expect(names).toEqual(["tiny-chat:latest", "sub/nested:latest", "embedder:latest"]);
        expect(res.body.models[0]).toEqual({
            name: "tiny-chat:latest", model: "tiny-chat:latest", modified_at: "2023-11-14T22:13:20.000Z", size: 1234,
            digest: expect.stringMatching(/^[0-9a-f]{64}$/),
            details: {parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "", quantization_level: ""}
        });
        await request(t.app).head("/api/tags").expect(200);
    });

    it("POST /api/show: the served context as <arch>.context_length and num_ctx, Ollama's capability names, by id or id:latest", async () => {
        const t = createTestApp();
        for (const model of [MODEL, `${MODEL}:latest`]) {
            const res = await request(t.app).post("/api/show").send({model}).expect(200);
            expect(res.body.model_info).toEqual({"general.architecture": "llama", "llama.context_length": CONTEXT_LENGTH});
            expect(res.body.parameters).toMatch(new RegExp(`^num_ctx\\s+${CONTEXT_LENGTH}$`));
            expect(res.body.capabilities).toEqual(["completion", "tools"]);
            expect(res.body.template).not.toContain(".Suffix");
            expect(res.body.details.family).toBe("llama");
        }
        // Older clients send `name`.
        const embedder = await request(t.app).post("/api/show").send({name: "embedder"}).expect(200);
        expect(embedder.body.capabilities).toEqual(["embedding"]);
    });

    it("a model that thinks shows 'thinking' (Zed offers its reasoning toggle by it), in /api/show and /v1/models", async () => {
        const t = createTestApp({descriptors: [descriptor("thinker", {capabilities: ["chat", "completion", "thinking"]}), descriptor("plain")]});
        expect((await request(t.app).post("/api/show").send({model: "thinker"}).expect(200)).body.capabilities).toEqual(["completion", "thinking"]);
        expect((await request(t.app).post("/api/show").send({model: "plain"}).expect(200)).body.capabilities).toEqual(["completion"]);
        expect((await request(t.app).get("/v1/models/thinker").expect(200)).body.capabilities).toEqual(["chat", "completion", "thinking"]);
    });

    it("a model with FIM tokens shows 'insert' and a template holding .Suffix (Continue's test for FIM)", async () => {
        const t = createTestApp();
        t.model.supportsInfill = true;
        await request(t.app).post("/api/generate").send({model: MODEL}).expect(200);
        const res = await request(t.app).post("/api/show").send({model: MODEL}).expect(200);
        expect(res.body.capabilities).toContain("insert");
        expect(res.body.template).toContain(".Suffix");
    });

    it("GET /api/ps lists loaded models with their context, size and expiry; an empty generate loads one", async () => {
        const t = createTestApp();
        expect((await request(t.app).get("/api/ps").expect(200)).body).toEqual({models: []});
        const load = await request(t.app).post("/api/generate").send({model: `${MODEL}:latest`, stream: false}).expect(200);
        expect(load.body).toMatchObject({model: `${MODEL}:latest`, response: "", done: true, done_reason: "load"});
        const res = await request(t.app).get("/api/ps").expect(200);
        expect(res.body.models).toEqual([{
            name: "tiny-chat:latest", model: "tiny-chat:latest", size: expect.any(Number), digest: expect.any(String),
            details: expect.objectContaining({family: "llama"}), expires_at: expect.any(String), size_vram: 0, context_length: CONTEXT_LENGTH
        }]);
        const unload = await request(t.app).post("/api/generate").send({model: MODEL, keep_alive: 0, stream: false}).expect(200);
        expect(unload.body.done_reason).toBe("unload");
        expect((await request(t.app).get("/api/ps").expect(200)).body).toEqual({models: []});
    });

    it("an Ollama-style alias (qwen2.5-coder:7b) is listed as written and serves its model; deleting it is refused", async () => {
        const t = createTestApp({modelAliases: [{name: "qwen2.5-coder:7b", model: MODEL}]});
        const names = (await request(t.app).get("/api/tags").expect(200)).body.models.map((model: {name: string}) => model.name);
        expect(names).toContain("qwen2.5-coder:7b");
        expect((await request(t.app).post("/api/show").send({model: "qwen2.5-coder:7b"}).expect(200)).body.capabilities).toContain("tools");
        const reply = await request(t.app).post("/api/chat").send({model: "qwen2.5-coder:7b", stream: false, messages: [{role: "user", content: "hi"}]}).expect(200);
        expect(reply.body).toMatchObject({model: "qwen2.5-coder:7b", done: true});
        expect((await request(t.app).delete("/api/delete").send({model: "qwen2.5-coder:7b"}).expect(400)).body.error).toContain("alias");
    });

    it("Copilot's way: the name /api/tags lists (id:latest) works on /v1/chat/completions too", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send({model: `${MODEL}:latest`, messages: [{role: "user", content: "hi"}]}).expect(200);
        expect(res.body.model).toBe(`${MODEL}:latest`);
    });

    it("errors are Ollama's {error} envelope: an unknown model is a 404, a missing field a 400, an unknown path a 404", async () => {
        const t = createTestApp();
        const missing = await request(t.app).post("/api/show").send({model: "nope"}).expect(404);
        expect(Object.keys(missing.body)).toEqual(["error"]);
        expect(missing.body.error).toMatch(/^model not found: .*'nope'/);
        const bad = await request(t.app).post("/api/show").send({}).expect(400);
        expect(bad.body).toEqual({error: expect.stringContaining("model")});
        const unknown = await request(t.app).get("/api/nothing").expect(404);
        expect(Object.keys(unknown.body)).toEqual(["error"]);
        const malformed = await request(t.app).post("/api/chat").set("content-type", "application/json").send("{not json").expect(400);
        expect(Object.keys(malformed.body)).toEqual(["error"]);
    });

    it("with API keys, /api/* needs one (Ollama's clients send it as a Bearer header), answered in Ollama's envelope", async () => {
        const t = createTestApp({apiKeys: ["secret"]});
        const refused = await request(t.app).get("/api/tags").expect(401);
        expect(Object.keys(refused.body)).toEqual(["error"]);
        await request(t.app).get("/api/tags").set("authorization", "Bearer secret").expect(200);
    });
});
