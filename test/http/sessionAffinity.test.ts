import {createHash} from "node:crypto";
import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf, MODEL} from "./support/testApp.js";

const digest = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 32);

describe("x-chatserve-session", () => {
    it("echoes the explicit key on a reply, streamed or not", async () => {
        const {app} = createTestApp();
        const plain = await request(app).post("/v1/chat/completions").set("x-chatserve-session", "conv-1").send(chatRequest()).expect(200);
        expect(plain.headers["x-chatserve-session"]).toBe("conv-1");
        const streamed = await request(app).post("/v1/chat/completions").set("x-chatserve-session", "conv-1").send(chatRequest({stream: true})).expect(200);
        expect(streamed.headers["x-chatserve-session"]).toBe("conv-1");
    });

    it("computes the key from what each client already sends: Codex's header, Claude Code's, and the body's keys", async () => {
        const {app} = createTestApp();
        const codex = await request(app).post("/v1/responses").set("session_id", "codex-conv").send({model: MODEL, input: "Hi", prompt_cache_key: "codex-conv"}).expect(200);
        expect(codex.headers["x-chatserve-session"]).toBe(digest("codex-conv"));
        const claude = await request(app).post("/v1/messages").set("x-claude-code-session-id", "cc-1")
            .send({model: MODEL, max_tokens: 8, messages: [{role: "user", content: "Hi"}], metadata: {user_id: "user_x"}}).expect(200);
        expect(claude.headers["x-chatserve-session"]).toBe(digest("cc-1"));
        const anthropicSdk = await request(app).post("/v1/messages").send({model: MODEL, max_tokens: 8, messages: [{role: "user", content: "Hi"}], metadata: {user_id: "user_x"}}).expect(200);
        expect(anthropicSdk.headers["x-chatserve-session"]).toBe(digest("user_x"));
        const openAi = await request(app).post("/v1/chat/completions").send(chatRequest({prompt_cache_key: "pck", user: "alice"})).expect(200);
        expect(openAi.headers["x-chatserve-session"]).toBe(digest("pck"));
    });

    it("sends none when nothing names the conversation", async () => {
        const {app} = createTestApp();
        const res = await request(app).post("/v1/chat/completions").send(chatRequest()).expect(200);
        expect(res.headers["x-chatserve-session"]).toBeUndefined();
    });

    it("refuses a malformed explicit key with a 400 in the route's own envelope, and keeps serving", async () => {
        const {app} = createTestApp();
        const openAi = await request(app).post("/v1/chat/completions").set("x-chatserve-session", "a".repeat(300)).send(chatRequest()).expect(400);
        expect(errorOf(openAi.body)).toMatchObject({type: "invalid_request_error", code: "invalid_session_key"});
        const anthropic = await request(app).post("/v1/messages").set("x-chatserve-session", "has space")
            .send({model: MODEL, max_tokens: 8, messages: [{role: "user", content: "Hi"}]}).expect(400);
        expect(anthropic.body).toMatchObject({type: "error", error: {type: "invalid_request_error"}});
        await request(app).post("/v1/chat/completions").set("x-chatserve-session", "fine").send(chatRequest()).expect(200);
    });
});
