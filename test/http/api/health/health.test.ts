import express from "express";
import request from "supertest";
import {describe, expect, it} from "vitest";
import {healthRoute} from "../../../../src/api/health/healthRoute.js";
import {createTestApp} from "../../support/testApp.js";

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

    it("names the compute backend when the server knows it (chatserve ps shows it as the processor)", async () => {
        const res = await request(express().use(healthRoute("CPU"))).get("/health");
        expect(res.status).toBe(200);
        expect(res.body).toEqual({status: "ok", backend: "CPU"});
    });
});
