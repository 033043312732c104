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

describe("GET /health/ready", () => {
    it("answers 200 ready when nothing stops the server from taking requests (and with no readiness given)", async () => {
        const res = await request(express().use(healthRoute("CPU", () => ({ready: true})))).get("/health/ready");
        expect(res.status).toBe(200);
        expect(res.body).toEqual({status: "ready"});
        expect(res.headers["cache-control"]).toBe("no-store");
        expect((await request(express().use(healthRoute())).get("/health/ready")).status).toBe(200);
    });

    it("answers 503 with Retry-After and the reason while not ready; /health stays 200 (liveness)", async () => {
        const app = express().use(healthRoute("CPU", () => ({ready: false, reason: "shutting_down", message: "The server is shutting down.", retryAfterSeconds: 5})));
        const res = await request(app).get("/health/ready");
        expect(res.status).toBe(503);
        expect(res.headers["retry-after"]).toBe("5");
        expect(res.body).toEqual({status: "not_ready", reason: "shutting_down", message: "The server is shutting down."});
        expect((await request(app).get("/health")).status).toBe(200);
    });

    it("needs no API key, and in the app says whether the catalogue has a model to serve", async () => {
        const {app} = createTestApp({apiKeys: ["secret"]});
        expect((await request(app).get("/health/ready")).status).toBe(200);
        const {app: empty} = createTestApp({descriptors: []});
        const res = await request(empty).get("/health/ready");
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({reason: "no_models"});
    });
});
