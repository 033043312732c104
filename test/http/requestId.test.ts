import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp} from "./support/testApp.js";

describe("x-request-id", () => {
    const {app} = createTestApp();

    it("is set on every response, success and error alike, and differs per request", async () => {
        const responses = [
            await request(app).get("/health"),
            await request(app).get("/v1/models"),
            await request(app).get("/nowhere"),
            await request(app).post("/v1/chat/completions").send(chatRequest({messages: []}))
        ];
        const ids = responses.map((res) => res.headers["x-request-id"]);
        for (const id of ids)
            expect(id).toMatch(/^req_[0-9a-f]{32}$/);
        expect(new Set(ids).size).toBe(ids.length);
    });

    it("echoes the client's id when it sends a sane one", async () => {
        const res = await request(app).post("/v1/chat/completions").set("x-request-id", "client-42.a:b").send(chatRequest({stream: true}));
        expect(res.headers["x-request-id"]).toBe("client-42.a:b");
    });

    it("replaces an id that is not safe to log", async () => {
        const res = await request(app).get("/health").set("x-request-id", "bad id with spaces");
        expect(res.headers["x-request-id"]).toMatch(/^req_/);
    });
});
