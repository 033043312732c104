import request from "supertest";
import {beforeEach, describe, expect, it} from "vitest";
import {BROKEN_REASON, CONTEXT_LENGTH} from "../../support/fakeEngine.js";
import {chatRequest, createTestApp, errorOf, type TestApp} from "../../support/testApp.js";

describe("GET /v1/models", () => {
    let t: TestApp;
    beforeEach(() => { t = createTestApp(); });

    it("lists every model in OpenAI's list shape with chatserve's extensions", async () => {
        const res = await request(t.app).get("/v1/models");
        expect(res.status).toBe(200);
        expect(res.body.object).toBe("list");
        expect(res.body.data.map((m: {id: string}) => m.id)).toEqual(["tiny-chat", "sub/nested", "broken", "embedder"]);
        expect(res.body.data[0]).toMatchObject({
            id: "tiny-chat",
            object: "model",
            created: 1_700_000_000,
            owned_by: "chatserve",
            context_length: CONTEXT_LENGTH,
            parallel: 1,
            kv_cache_bytes: null,
            capabilities: ["chat", "completion", "tools"],
            status: "available",
            loaded: false
        });
        expect(res.body.data[0]).not.toHaveProperty("error");
    });

    it("lists an unreadable model as unavailable, with the reason", async () => {
        const res = await request(t.app).get("/v1/models");
        const broken = res.body.data.find((m: {id: string}) => m.id === "broken");
        expect(broken).toMatchObject({object: "model", status: "unavailable", loaded: false, error: BROKEN_REASON, capabilities: []});
    });

    it("describes one model by id, including ids with a slash", async () => {
        const one = await request(t.app).get("/v1/models/tiny-chat");
        expect(one.status).toBe(200);
        expect(one.body).toMatchObject({id: "tiny-chat", object: "model", owned_by: "chatserve"});

        const nested = await request(t.app).get("/v1/models/sub/nested");
        expect(nested.status).toBe(200);
        expect(nested.body.id).toBe("sub/nested");
    });

    it("answers 404 model_not_found for an unknown id, after a rescan", async () => {
        const res = await request(t.app).get("/v1/models/nope");
        expect(res.status).toBe(404);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", code: "model_not_found", param: "model"});
        expect(errorOf(res.body).message).toContain("nope");
        expect(t.catalogue.refreshes).toBe(1);
    });

    it("reports a model as loaded once a request has used it, and loads it only once", async () => {
        await request(t.app).post("/v1/chat/completions").send(chatRequest()).expect(200);
        await request(t.app).post("/v1/chat/completions").send(chatRequest()).expect(200);
        const res = await request(t.app).get("/v1/models/tiny-chat");
        expect(res.body).toMatchObject({status: "loaded", loaded: true, context_length: CONTEXT_LENGTH});
        expect(t.loads()).toBe(1);
    });
});

describe("model aliases (--model-alias)", () => {
    let t: TestApp;
    beforeEach(() => {
        t = createTestApp({modelAliases: [{name: "gpt-4o", model: "tiny-chat"}, {name: "claude-*", model: "tiny-chat"}, {name: "text-embedding-3-small", model: "embedder"}]});
    });

    it("lists each exact alias as a model pointing at the real one, and the aliases on the real one", async () => {
        const res = await request(t.app).get("/v1/models");
        expect(res.body.data.map((m: {id: string}) => m.id)).toEqual(["tiny-chat", "sub/nested", "broken", "embedder", "gpt-4o", "text-embedding-3-small"]);
        const byId = (id: string) => res.body.data.find((m: {id: string}) => m.id === id);
        expect(byId("gpt-4o")).toMatchObject({object: "model", owned_by: "chatserve", alias_for: "tiny-chat", context_length: CONTEXT_LENGTH, capabilities: ["chat", "completion", "tools"]});
        expect(byId("tiny-chat").aliases).toEqual(["gpt-4o", "claude-*"]);

        const one = await request(t.app).get("/v1/models/claude-sonnet-4-5");
        expect(one.status).toBe(200);
        expect(one.body).toMatchObject({id: "claude-sonnet-4-5", alias_for: "tiny-chat"});
    });

    it("serves chat, completions, responses and embeddings by an alias, echoing the name the client asked for as OpenAI does", async () => {
        const chat = await request(t.app).post("/v1/chat/completions").send(chatRequest({model: "claude-haiku-4-5"}));
        expect(chat.status).toBe(200);
        expect(chat.body.model).toBe("claude-haiku-4-5");
        const completion = await request(t.app).post("/v1/completions").send({model: "gpt-4o", prompt: "Once", max_tokens: 2});
        expect(completion.status).toBe(200);
        expect(completion.body.model).toBe("gpt-4o");
        const response = await request(t.app).post("/v1/responses").send({model: "gpt-4o", input: "Hi", max_output_tokens: 2});
        expect(response.status).toBe(200);
        expect(response.body.model).toBe("gpt-4o");
        const embedding = await request(t.app).post("/v1/embeddings").send({model: "text-embedding-3-small", input: "hi"});
        expect(embedding.status).toBe(200);
        expect(embedding.body.model).toBe("text-embedding-3-small");
        expect(t.loads()).toBe(2); // tiny-chat once for both of its names, and the embedder
    });

    it("still answers 404 for a name no alias covers", async () => {
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({model: "gpt-5"}));
        expect(res.status).toBe(404);
        expect(errorOf(res.body)).toMatchObject({code: "model_not_found", param: "model"});
    });

    it("answers 404 naming both names for an alias of a model the folder does not hold", async () => {
        t = createTestApp({modelAliases: [{name: "gpt-4o", model: "qwen2.5-7b"}]});
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({model: "gpt-4o"}));
        expect(res.status).toBe(404);
        expect(errorOf(res.body).message).toContain("'gpt-4o' is an alias of 'qwen2.5-7b', which the models folder does not hold");
        const listed = await request(t.app).get("/v1/models");
        expect(listed.body.data.at(-1)).toMatchObject({id: "gpt-4o", alias_for: "qwen2.5-7b", status: "unavailable"});
    });
});
