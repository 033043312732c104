import {execFileSync} from "node:child_process";
import request from "supertest";
import {beforeAll, describe, expect, it} from "vitest";
import {createTestApp} from "../../support/testApp.js";

// What a browser sends for a page, and what Chromium sends for fetch(): only the first names text/html.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

describe("the chat page at /", () => {
    beforeAll(() => {
        // The route serves dist/web, which `npm run build` writes; built here so the test needs no earlier build.
        execFileSync(process.execPath, ["scripts/buildWebPage.mjs"], {stdio: "ignore"});
    }, 60_000);

    it("gives a browser the page, under a strict Content-Security-Policy", async () => {
        const {app} = createTestApp();
        const response = await request(app).get("/").set("Accept", browserAccept);
        expect(response.status).toBe(200);
        expect(response.headers["content-type"]).toMatch(/^text\/html/);
        expect(response.text).toContain('<script type="module" src="/chat/app.js"></script>');
        const csp = response.headers["content-security-policy"];
        expect(csp).toContain("default-src 'none'");
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("connect-src 'self'");
        expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
        expect(response.headers["vary"]).toMatch(/Accept/);
        expect(response.headers["x-content-type-options"]).toBe("nosniff");
    });

    it.each([
        ["no Accept", undefined],
        ["*/*", "*/*"],
        ["application/json", "application/json"]
    ])("keeps the JSON answer for clients that probe / with %s", async (_name, accept) => {
        const {app} = createTestApp();
        const call = request(app).get("/");
        const response = await (accept == null ? call.unset("Accept") : call.set("Accept", accept));
        expect(response.status).toBe(200);
        expect(response.body).toEqual({name: "chatserve", status: "ok", api: "/v1"});
        expect(response.headers["content-security-policy"]).toBeUndefined();
        expect(response.headers["vary"]).toMatch(/Accept/);
    });

    it("serves the bundle's script and styles from chatserve itself, with the same policy", async () => {
        const {app} = createTestApp();
        const script = await request(app).get("/chat/app.js");
        expect(script.status).toBe(200);
        expect(script.headers["content-type"]).toMatch(/javascript/);
        expect(script.headers["content-security-policy"]).toContain("default-src 'none'");
        // Offline: the bundle loads nothing from elsewhere.
        expect(script.text).not.toMatch(/cdn\.|unpkg|jsdelivr|googleapis/);
        const styles = await request(app).get("/chat/app.css");
        expect(styles.status).toBe(200);
        expect(styles.headers["content-type"]).toMatch(/^text\/css/);
        expect((await request(app).get("/chat/missing.js")).status).toBe(404);
    });

    it("needs no key for the page (it holds no data) while the API still does", async () => {
        const {app} = createTestApp({apiKeys: ["secret"]});
        expect((await request(app).get("/").set("Accept", browserAccept)).status).toBe(200);
        expect((await request(app).get("/chat/app.js")).status).toBe(200);
        expect((await request(app).get("/v1/models")).status).toBe(401);
    });

    it("keeps the Host check in front of the page", async () => {
        const {app} = createTestApp();
        expect((await request(app).get("/").set("Host", "evil.example").set("Accept", browserAccept)).status).toBe(403);
    });
});
