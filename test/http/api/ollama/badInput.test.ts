// Bad input on every Ollama route: a 4xx in Ollama's envelope naming the problem, never a 500,
// and the server serves the next request.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {createTestApp, MODEL} from "../../support/testApp.js";

const user = [{role: "user", content: "hi"}];
const cases: Array<[string, "post" | "delete", Record<string, unknown> | string, number]> = [
    ["/api/chat", "post", {model: MODEL, messages: "hi"}, 400],
    ["/api/chat", "post", {model: MODEL, messages: [{role: "robot", content: "hi"}]}, 400],
    ["/api/chat", "post", {model: MODEL, messages: [{role: "user", content: 5}]}, 400],
    ["/api/chat", "post", {model: MODEL, messages: user, format: 5}, 400],
    ["/api/chat", "post", {model: MODEL, messages: user, format: "yaml"}, 400],
    ["/api/chat", "post", {model: MODEL, messages: user, options: {num_predict: 1.5}}, 400],
    ["/api/chat", "post", {model: MODEL, messages: user, options: {stop: "x"}}, 400],
    ["/api/chat", "post", {model: MODEL, messages: user, options: {num_ctx: 0}}, 400],
    ["/api/chat", "post", {model: MODEL, messages: user, keep_alive: "soon"}, 400],
    ["/api/chat", "post", {model: MODEL, messages: user, tools: [{type: "function", function: {}}]}, 400],
    ["/api/chat", "post", {model: MODEL, messages: [{role: "assistant", content: "", tool_calls: [{function: {name: "f", arguments: 3}}]}]}, 400],
    ["/api/chat", "post", {model: MODEL, messages: [{role: "user", content: "x", images: ["%%%not base64"]}]}, 400],
    ["/api/chat", "post", {model: "embedder", messages: user}, 400],
    ["/api/chat", "post", {model: "broken", messages: user}, 400],
    ["/api/chat", "post", {model: "nope:latest", messages: user}, 404],
    ["/api/chat", "post", "[1, 2]", 400],
    ["/api/generate", "post", {model: MODEL, prompt: 5}, 400],
    ["/api/generate", "post", {model: MODEL, prompt: "x", raw: true, images: ["aGk="]}, 400],
    ["/api/generate", "post", {model: MODEL, prompt: "x", raw: true, format: "json"}, 400],
    ["/api/generate", "post", {model: "embedder", prompt: "x", raw: true}, 400],
    ["/api/embed", "post", {model: MODEL}, 400],
    ["/api/embeddings", "post", {model: "embedder"}, 400],
    ["/api/show", "post", {model: 5}, 400],
    ["/api/pull", "post", {model: "not a url or name"}, 400],
    ["/api/delete", "delete", {}, 400]
];

describe("bad input on Ollama's routes", () => {
    it.each(cases)("%s %s %j → %i in Ollama's envelope", async (route, method, body, status) => {
        const t = createTestApp();
        const sent = typeof body === "string" ? request(t.app)[method](route).set("content-type", "application/json").send(body) : request(t.app)[method](route).send(body);
        const res = await sent;
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        expect(Object.keys(res.body)).toEqual(["error"]);
        expect(typeof res.body.error).toBe("string");
        // The server goes on serving.
        await request(t.app).post("/api/chat").send({model: MODEL, messages: user, stream: false}).expect(200);
    });

    it("a method a route does not take is a 405 in Ollama's envelope", async () => {
        const t = createTestApp();
        const res = await request(t.app).get("/api/chat").expect(405);
        expect(Object.keys(res.body)).toEqual(["error"]);
        expect(res.headers.allow).toContain("POST");
    });
});
