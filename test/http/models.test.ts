import request from "supertest";
import {beforeEach, describe, expect, it} from "vitest";
import {BROKEN_REASON, CONTEXT_LENGTH} from "./support/fakeEngine.js";
import {chatRequest, createTestApp, errorOf, type TestApp} from "./support/testApp.js";

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
