import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf} from "./support/testApp.js";

describe("API keys", () => {
    const {app} = createTestApp({apiKeys: ["key-one", "key-two"]});

    it("refuses a request without a key: 401, WWW-Authenticate, OpenAI envelope", async () => {
        const res = await request(app).get("/v1/models");
        expect(res.status).toBe(401);
        expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
        expect(errorOf(res.body)).toMatchObject({type: "authentication_error", code: "invalid_api_key", param: null});
    });

    it("refuses a wrong key, and a key that is not a Bearer token", async () => {
        const wrong = await request(app).get("/v1/models").set("Authorization", "Bearer key-three");
        expect(wrong.status).toBe(401);
        expect(errorOf(wrong.body).code).toBe("invalid_api_key");

        const basic = await request(app).get("/v1/models").set("Authorization", "Basic key-one");
        expect(basic.status).toBe(401);
    });

    it("accepts every configured key", async () => {
        for (const key of ["key-one", "key-two"]) {
            const res = await request(app).get("/v1/models").set("Authorization", `Bearer ${key}`);
            expect(res.status).toBe(200);
        }
        const chat = await request(app).post("/v1/chat/completions").set("Authorization", "Bearer key-two").send(chatRequest());
        expect(chat.status).toBe(200);
    });

    it("checks the key before reading the body", async () => {
        const res = await request(app).post("/v1/chat/completions").set("Content-Type", "application/json").send("{not json");
        expect(res.status).toBe(401);
    });

    it("leaves /health open", async () => {
        expect((await request(app).get("/health")).status).toBe(200);
    });
});

describe("without configured keys", () => {
    const {app} = createTestApp();

    it("accepts requests with any Authorization header, or none", async () => {
        expect((await request(app).get("/v1/models")).status).toBe(200);
        expect((await request(app).get("/v1/models").set("Authorization", "Bearer whatever")).status).toBe(200);
        expect((await request(app).get("/v1/models").set("Authorization", "garbage")).status).toBe(200);
    });
});

describe("two credentials that differ", () => {
    // The header sent twice, as two lines (superagent sends an array so; its types allow that for Cookie only).
    const twice = (first: string, second: string) => [first, second] as unknown as string;

    it.each([[["key-one"]], [[]]])("two Authorization headers → 400 naming the header (keys: %j)", async (apiKeys) => {
        const {app} = createTestApp({apiKeys});
        const res = await request(app).post("/v1/chat/completions").set("Authorization", twice("Bearer key-one", "Bearer other")).send(chatRequest());
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "Authorization", code: "conflicting_headers"});
    });

    it("two x-api-key headers → 400, in Anthropic's envelope on /v1/messages", async () => {
        const {app} = createTestApp({apiKeys: ["key-one"]});
        const res = await request(app).post("/v1/messages").set("x-api-key", twice("key-one", "other")).send({model: "tiny-chat", max_tokens: 8, messages: []});
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({type: "error", error: {type: "invalid_request_error", message: expect.stringContaining("x-api-key")}});
    });

    it("the same key sent twice is one key", async () => {
        const {app} = createTestApp({apiKeys: ["key-one"]});
        expect((await request(app).get("/v1/models").set("Authorization", twice("Bearer key-one", "Bearer key-one"))).status).toBe(200);
    });
});
