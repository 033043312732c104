// Roles: with an admin key configured, only it may change what is loaded for everyone.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf} from "./support/testApp.js";

const user = {Authorization: "Bearer sk-user"};
const admin = {Authorization: "Bearer sk-admin"};

describe("with an admin key", () => {
    const t = createTestApp({apiKeys: ["sk-user"], adminApiKeys: ["sk-admin"]});

    it("refuses another key's load and unload with 403 admin_key_required, and takes the admin's", async () => {
        for (const action of ["load", "unload"]) {
            const res = await request(t.app).post(`/v1/models/tiny-chat/${action}`).set(user).send({});
            expect(res.status, action).toBe(403);
            expect(errorOf(res.body)).toMatchObject({code: "admin_key_required", message: expect.stringContaining("--admin-api-key")});
            expect((await request(t.app).post(`/v1/models/tiny-chat/${action}`).set(admin).send({})).status, action).toBe(200);
        }
    });

    it("refuses another key's load and unload however the path is cased (Express routes it case-insensitively)", async () => {
        for (const path of ["/V1/models/tiny-chat/unload", "/v1/Models/tiny-chat/load", "/V1/MODELS/tiny-chat/unload"]) {
            const res = await request(t.app).post(path).set(user).send({});
            expect(res.status, path).toBe(403);
            expect(errorOf(res.body), path).toMatchObject({code: "admin_key_required"});
        }
    });

    it("refuses another key's keep_alive, pinning or unloading, on every API; the admin's is taken", async () => {
        for (const keepAlive of [-1, 0, "5m"]) {
            const res = await request(t.app).post("/v1/chat/completions").set(user).send(chatRequest({keep_alive: keepAlive}));
            expect(res.status).toBe(403);
            expect(errorOf(res.body)).toMatchObject({code: "admin_key_required", param: "keep_alive"});
        }
        const messages = await request(t.app).post("/v1/messages").set({"x-api-key": "sk-user"})
            .send({model: "tiny-chat", max_tokens: 4, keep_alive: -1, messages: [{role: "user", content: "hi"}]});
        expect(messages.status).toBe(403);
        expect(messages.body).toMatchObject({type: "error", error: {type: "permission_error"}});
        expect((await request(t.app).post("/v1/chat/completions").set(admin).send(chatRequest({keep_alive: -1}))).status).toBe(200);
    });

    it("serves everything else to every key, and the admin key is a key", async () => {
        expect((await request(t.app).post("/v1/chat/completions").set(user).send(chatRequest())).status).toBe(200);
        expect((await request(t.app).post("/v1/chat/completions").set(admin).send(chatRequest())).status).toBe(200);
        expect((await request(t.app).get("/v1/models").set(user)).status).toBe(200);
        expect((await request(t.app).get("/v1/models").set({Authorization: "Bearer wrong"})).status).toBe(401);
    });
});

describe("without an admin key", () => {
    it("lets every key load, unload and send keep_alive, as before", async () => {
        const t = createTestApp({apiKeys: ["sk-user"]});
        expect((await request(t.app).post("/v1/models/tiny-chat/load").set(user).send({keep_alive: -1})).status).toBe(200);
        expect((await request(t.app).post("/v1/chat/completions").set(user).send(chatRequest({keep_alive: 0}))).status).toBe(200);
    });
});
