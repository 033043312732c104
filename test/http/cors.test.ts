import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf} from "./support/testApp.js";

const preflight = (app: Parameters<typeof request>[0], origin: string) => request(app)
    .options("/v1/chat/completions")
    .set("Origin", origin)
    .set("Access-Control-Request-Method", "POST")
    .set("Access-Control-Request-Headers", "authorization, content-type");

describe("CORS (default: loopback pages and webviews)", () => {
    const {app} = createTestApp({apiKeys: ["secret"]});

    it("answers a preflight from a local page with 204 and the allow headers, before authentication", async () => {
        const res = await preflight(app, "http://localhost:3000");
        expect(res.status).toBe(204);
        expect(res.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
        expect(res.headers["access-control-allow-methods"]).toContain("POST");
        expect(res.headers["access-control-allow-headers"]).toMatch(/authorization/i);
        expect(res.headers["access-control-allow-headers"]).toMatch(/content-type/i);
        expect(res.headers.vary).toMatch(/Origin/);
    });

    it("refuses a preflight from a web page on the internet with a 403 envelope that names --cors-origin", async () => {
        const res = await preflight(app, "https://evil.example");
        expect(res.status).toBe(403);
        expect(res.headers["access-control-allow-origin"]).toBeUndefined();
        const error = errorOf(res.body);
        expect(error.code).toBe("cors_origin_not_allowed");
        expect(error.message).toContain("--cors-origin");
        expect(error.message).toContain("https://evil.example");
    });

    it("echoes an allowed Origin on simple requests and exposes x-request-id", async () => {
        const res = await request(app).get("/health").set("Origin", "http://127.0.0.1:5173");
        expect(res.status).toBe(200);
        expect(res.headers["access-control-allow-origin"]).toBe("http://127.0.0.1:5173");
        expect(res.headers["access-control-expose-headers"]).toMatch(/x-request-id/);
    });

    it("adds no allow header for a refused Origin on a simple request", async () => {
        const res = await request(app).get("/health").set("Origin", "https://evil.example");
        expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    });

    it("refuses a POST a foreign page can send without a preflight (text/plain, form-encoded), before it runs anything", async () => {
        for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded"]) {
            const res = await request(app).post("/v1/chat/completions").set("Origin", "https://evil.example").set("Authorization", "Bearer secret")
                .set("Content-Type", type).send(JSON.stringify(chatRequest()));
            expect(res.status).toBe(403);
            expect(errorOf(res.body).code).toBe("cors_origin_not_allowed");
        }
        // A JSON body needs a preflight, which is refused; a client exempt from CORS (an extension) is served.
        const json = await request(app).post("/v1/chat/completions").set("Origin", "chrome-extension://abc").set("Authorization", "Bearer secret")
            .send(chatRequest());
        expect(json.status).toBe(200);
        const local = await request(app).post("/v1/chat/completions").set("Origin", "http://localhost:3000").set("Authorization", "Bearer secret")
            .set("Content-Type", "text/plain").send(JSON.stringify(chatRequest()));
        expect(local.status).toBe(200);
    });

    it("puts the allow header on error responses too, so the page can read them", async () => {
        const res = await request(app).post("/v1/chat/completions").set("Origin", "http://localhost:3000").send(chatRequest());
        expect(res.status).toBe(401);
        expect(res.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    });
});

describe("CORS with --cors-origin", () => {
    it("'*' allows any origin", async () => {
        const {app} = createTestApp({corsOrigins: ["*"]});
        const res = await preflight(app, "https://evil.example");
        expect(res.status).toBe(204);
        expect(res.headers["access-control-allow-origin"]).toBe("https://evil.example");
    });

    it("answers Chrome's Private Network Access question for an allowed public site", async () => {
        const {app} = createTestApp({corsOrigins: ["https://chat.example.com"]});
        const res = await preflight(app, "https://chat.example.com").set("Access-Control-Request-Private-Network", "true");
        expect(res.status).toBe(204);
        expect(res.headers["access-control-allow-private-network"]).toBe("true");
        expect((await preflight(app, "https://chat.example.com")).headers["access-control-allow-private-network"]).toBeUndefined();
    });

    it("an exact origin is allowed, others still refused", async () => {
        const {app} = createTestApp({corsOrigins: ["https://chat.example.com"]});
        expect((await preflight(app, "https://chat.example.com")).status).toBe(204);
        expect((await preflight(app, "https://other.example.com")).status).toBe(403);
    });
});
