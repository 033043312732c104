// DNS rebinding: a page whose own name now points here still sends that name as Host, and gets a 403.
import http from "node:http";
import type {AddressInfo} from "node:net";
import request from "supertest";
import {afterEach, describe, expect, it} from "vitest";
import {openAiErrors} from "../../src/api/openai-shared/openAiErrors.js";
import {answerMalformedRequests} from "../../src/http/malformedRequest.js";
import {isLoopbackHost} from "../../src/http/hostCheck.js";
import {createLogger} from "../../src/logger.js";
import {rawExchange} from "./support/rawSocket.js";
import {chatRequest, createTestApp, errorOf} from "./support/testApp.js";

describe("on a loopback bind (the default)", () => {
    const {app} = createTestApp();

    it.each(["localhost", "localhost:8080", "LOCALHOST:8080", "chat.localhost:8080", "127.0.0.1:8080", "127.8.9.10", "[::1]:8080", "[::1]", "localhost."])(
        "serves Host %s", async (host) => {
            const res = await request(app).get("/v1/models").set("Host", host);
            expect(res.status).toBe(200);
        });

    it.each(["evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.nip.io", "192.168.1.5:8080", "[::2]:8080", "0.0.0.0:8080"])(
        "refuses Host %s with 403 in the envelope, naming the flag that would allow it", async (host) => {
            const res = await request(app).post("/v1/chat/completions").set("Host", host).send(chatRequest());
            expect(res.status).toBe(403);
            expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", code: "host_not_allowed"});
            expect(errorOf(res.body).message).toContain("--allowed-host");
        });

    it("refuses a rebinding page's /health, CORS preflight and / too", async () => {
        expect((await request(app).get("/health").set("Host", "evil.example")).status).toBe(403);
        expect((await request(app).get("/").set("Host", "evil.example")).status).toBe(403);
        const preflight = await request(app).options("/v1/chat/completions").set("Host", "evil.example")
            .set("Origin", "http://evil.example").set("Access-Control-Request-Method", "POST");
        expect(preflight.status).toBe(403);
        expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    });

    it("answers /v1/messages in Anthropic's envelope", async () => {
        const res = await request(app).post("/v1/messages").set("Host", "evil.example").send({model: "tiny-chat", max_tokens: 8, messages: []});
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({type: "error", error: {type: "permission_error"}});
    });

    it("serves the names given with --allowed-host, in any case and with any port", async () => {
        const {app: proxied} = createTestApp({allowedHosts: ["Chat.Example.com"]});
        expect((await request(proxied).get("/v1/models").set("Host", "chat.example.com:443")).status).toBe(200);
        expect((await request(proxied).get("/v1/models").set("Host", "localhost")).status).toBe(200);
        expect((await request(proxied).get("/v1/models").set("Host", "other.example.com")).status).toBe(403);
    });
});

describe("on another bind", () => {
    it("without API keys: loopback names and addresses only, as a rebinding page can aim its name at the LAN address too", async () => {
        const {app} = createTestApp({host: "0.0.0.0"});
        for (const host of ["localhost:8080", "192.168.1.5:8080", "10.0.0.2", "[fe80::1]:8080"])
            expect((await request(app).get("/v1/models").set("Host", host)).status, host).toBe(200);
        for (const host of ["anything.example:8080", "evil.example", "chat.lan"]) {
            const res = await request(app).post("/v1/chat/completions").set("Host", host).send(chatRequest());
            expect(res.status, host).toBe(403);
            expect(errorOf(res.body)).toMatchObject({code: "host_not_allowed", message: expect.stringContaining("--allowed-host")});
        }
    });

    it("with API keys: any Host (a rebinding page cannot know a key)", async () => {
        const {app} = createTestApp({host: "0.0.0.0", apiKeys: ["sk-test"]});
        const res = await request(app).get("/v1/models").set("Host", "anything.example:8080").set("Authorization", "Bearer sk-test");
        expect(res.status).toBe(200);
    });

    it("with --allowed-host: those names, the loopback ones and addresses, keys or not", async () => {
        for (const apiKeys of [[], ["sk-test"]]) {
            const {app} = createTestApp({host: "0.0.0.0", allowedHosts: ["chat.lan"], apiKeys});
            const get = (host: string) => request(app).get("/v1/models").set("Host", host).set("Authorization", "Bearer sk-test");
            for (const host of ["chat.lan:8080", "localhost:8080", "192.168.1.5:8080", "[fe80::1]:8080"])
                expect((await get(host)).status, host).toBe(200);
            expect((await get("evil.example")).status).toBe(403);
        }
    });

    it("--allowed-host '*' serves every name, on any bind", async () => {
        for (const host of ["0.0.0.0", "127.0.0.1"]) {
            const {app} = createTestApp({host, allowedHosts: ["*"]});
            expect((await request(app).get("/v1/models").set("Host", "anything.example")).status, host).toBe(200);
        }
    });
});

describe("a Host header that is missing or doubled", () => {
    let server: http.Server | undefined;
    afterEach(() => new Promise<void>((resolve) => {
        server?.closeAllConnections();
        server?.close(() => resolve());
    }));

    async function exchange(bytes: string): Promise<{status: number, body: unknown}> {
        server = http.createServer(createTestApp().app);
        answerMalformedRequests(server, createLogger("silent"), openAiErrors);
        await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
        const text = (await rawExchange((server.address() as AddressInfo).port, bytes)).toString("utf8");
        const [head = "", body = ""] = text.split("\r\n\r\n");
        return {status: Number(head.split(" ")[1]), body: body === "" ? null : JSON.parse(body)};
    }

    it("HTTP/1.1 without Host → 400 in the envelope", async () => {
        const reply = await exchange("GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n");
        expect(reply.status).toBe(400);
        expect(errorOf(reply.body)).toMatchObject({code: "missing_host"});
    });

    it("HTTP/1.0 without Host is served: browsers always send one", async () => {
        expect((await exchange("GET /v1/models HTTP/1.0\r\n\r\n")).status).toBe(200);
    });

    it("two Host headers → 400", async () => {
        const reply = await exchange("GET /v1/models HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
        expect(reply.status).toBe(400);
        expect(errorOf(reply.body)).toMatchObject({code: "invalid_host"});
    });
});

describe("isLoopbackHost", () => {
    it.each([["127.0.0.1", true], ["::1", true], ["[::1]", true], ["0:0:0:0:0:0:0:1", true], ["::ffff:127.0.0.1", true], ["localhost", true],
        ["0.0.0.0", false], ["::", false], ["192.168.1.5", false], ["example.com", false]])("%s → %s", (host, loopback) => {
        expect(isLoopbackHost(host)).toBe(loopback);
    });
});
