import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf} from "../../support/testApp.js";

// The double renders a conversation as its messages' words, one token each (fakeEngine.ts).
describe("POST /apply-template", () => {
    it("answers {prompt}: what the conversation service rendered for the same chat request", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/apply-template").send(chatRequest({
            messages: [{role: "system", content: "Be brief"}, {role: "user", content: "Say hello"}],
            tools: [{type: "function", function: {name: "get_time", parameters: {type: "object", properties: {}}}}]
        }));
        expect(res.status).toBe(200);
        expect(res.body).toEqual({prompt: "Be brief Say hello (4 tokens)"});
        // Rendered as the chat request would be: with its tools, and no generation.
        expect(t.model.renderedTools.map((tool) => tool.name)).toEqual(["get_time"]);
        expect(t.model.generations).toHaveLength(0);
    });

    it("refuses what a chat request would refuse, in OpenAI's envelope", async () => {
        const {app} = createTestApp();
        const noMessages = await request(app).post("/apply-template").send({model: "tiny-chat"});
        expect(noMessages.status).toBe(400);
        expect(errorOf(noMessages.body).param).toBe("messages");
        const embedder = await request(app).post("/apply-template").send(chatRequest({model: "embedder"}));
        expect(embedder.status).toBe(400);
        expect(errorOf(embedder.body).code).toBe("unsupported_model");
    });
});

describe("POST /v1/chat/completions/input_tokens", () => {
    it("counts the prompt as the same request's usage.prompt_tokens reports it", async () => {
        const {app} = createTestApp();
        const body = chatRequest({messages: [{role: "user", content: "one two three four five"}]});
        const counted = await request(app).post("/v1/chat/completions/input_tokens").send(body);
        expect(counted.status).toBe(200);
        const completed = await request(app).post("/v1/chat/completions").send({...body, max_tokens: 2});
        expect(counted.body).toEqual({object: "response.input_tokens", input_tokens: completed.body.usage.prompt_tokens});
        expect(counted.body.input_tokens).toBe(5);
    });

    it("counts a prompt longer than the context, which the chat request would refuse: a client asks to learn whether it fits", async () => {
        const {app} = createTestApp();
        const body = chatRequest({messages: [{role: "user", content: "word ".repeat(70)}]});
        const res = await request(app).post("/v1/chat/completions/input_tokens").send(body);
        expect(res.status).toBe(200);
        expect(res.body.input_tokens).toBe(70);
        expect(errorOf((await request(app).post("/v1/chat/completions").send(body)).body).code).toBe("context_length_exceeded");
    });

    it("takes the API key, and so does /apply-template", async () => {
        const {app} = createTestApp({apiKeys: ["secret"]});
        for (const path of ["/v1/chat/completions/input_tokens", "/apply-template"]) {
            expect((await request(app).post(path).send(chatRequest())).status, path).toBe(401);
            expect((await request(app).post(path).set("Authorization", "Bearer secret").send(chatRequest())).status, path).toBe(200);
        }
    });
});
