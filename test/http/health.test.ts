import request from "supertest";
import {describe, expect, it} from "vitest";
import {createTestApp} from "./support/testApp.js";

describe("GET /health", () => {
    it("answers 200 ok", async () => {
        const {app} = createTestApp();
        const res = await request(app).get("/health");
        expect(res.status).toBe(200);
        expect(res.body).toEqual({status: "ok"});
    });

    it("needs no API key even when keys are configured", async () => {
        const {app} = createTestApp({apiKeys: ["secret"]});
        const res = await request(app).get("/health");
        expect(res.status).toBe(200);
    });
});
