// Anthropic's Messages API on the wire, over the engine double: the message object, the event
// sequence, tool use both ways, errors in Anthropic's envelope, its auth header, count_tokens.
import request from "supertest";
import {describe, expect, it} from "vitest";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";
import {namedEvents} from "../../support/sse.js";
import {createTestApp, MODEL} from "../../support/testApp.js";

const body = (extra: Record<string, unknown> = {}) => ({model: MODEL, max_tokens: 32, messages: [{role: "user", content: "Say hello"}], ...extra});
const weatherTool = {name: "get_weather", description: "Weather", input_schema: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}};
const call: Array<string | GenerationEvent> = [
    "Checking.",
    {type: "toolCall", index: 0, name: "get_weather"},
    {type: "toolArguments", index: 0, text: "{\"city\": "},
    {type: "toolArguments", index: 0, text: "\"Paris\"}"}
];

describe("POST /v1/messages", () => {
    it("answers a message: text content, stop_reason end_turn, usage, request-id", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/messages?beta=true").send(body({system: [{type: "text", text: "Be brief.", cache_control: {type: "ephemeral"}}]})).expect(200);
        expect(res.body).toEqual({
            id: expect.stringMatching(/^msg_/), type: "message", role: "assistant", model: MODEL,
            content: [{type: "text", text: "Hello there!"}], stop_reason: "end_turn", stop_sequence: null,
            usage: {input_tokens: expect.any(Number), output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0}
        });
        expect(res.headers["request-id"]).toBe(res.headers["x-request-id"]);
    });

    it("streams Anthropic's event sequence", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/messages").send(body({stream: true})).expect(200);
        const events = namedEvents(res.text);
        expect(events.map((event) => event.event)).toEqual([
            "message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta", "content_block_delta",
            "content_block_stop", "message_delta", "message_stop"
        ]);
        expect(events[0]!.data.message).toMatchObject({role: "assistant", content: [], stop_reason: null});
        expect(events[2]!.data).toEqual({type: "content_block_start", index: 0, content_block: {type: "text", text: ""}});
        expect(events[3]!.data.delta).toEqual({type: "text_delta", text: "Hello"});
        expect(events[7]!.data).toMatchObject({delta: {stop_reason: "end_turn", stop_sequence: null}, usage: {output_tokens: 3}});
    });

    it("tool use: a tool_use block with an object input, stop_reason tool_use, and input_json_delta when streamed", async () => {
        const t = createTestApp();
        t.model.script = {pieces: call, finish: "toolCalls"};
        const res = await request(t.app).post("/v1/messages").send(body({tools: [weatherTool], tool_choice: {type: "any"}})).expect(200);
        expect(res.body.stop_reason).toBe("tool_use");
        expect(res.body.content).toEqual([
            {type: "text", text: "Checking."},
            {type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "get_weather", input: {city: "Paris"}}
        ]);
        expect(t.model.generations[0]!.options.format).toMatchObject({type: "toolCalls", choice: "required"});

        const streamed = namedEvents((await request(t.app).post("/v1/messages").send(body({tools: [weatherTool], stream: true})).expect(200)).text);
        const deltas = streamed.filter((event) => event.data.delta?.type === "input_json_delta").map((event) => event.data.delta.partial_json);
        expect(deltas.join("")).toBe("{\"city\": \"Paris\"}");
        expect(streamed.find((event) => event.data.content_block?.type === "tool_use")!.data.content_block).toMatchObject({name: "get_weather", input: {}});
    });

    it("takes tool_result blocks back as the tool's answer, and leaves server tools out", async () => {
        const t = createTestApp();
        const messages = [
            {role: "user", content: "Weather in Paris?"},
            {role: "assistant", content: [{type: "tool_use", id: "toolu_1", name: "get_weather", input: {city: "Paris"}}]},
            {role: "user", content: [{type: "tool_result", tool_use_id: "toolu_1", content: [{type: "text", text: "sunny"}]}, {type: "text", text: "Thanks"}]}
        ];
        const tools = [weatherTool, {type: "web_search_20250305", name: "web_search"}];
        await request(t.app).post("/v1/messages").send(body({messages, tools})).expect(200);
        expect(t.model.renderedTools.map((tool) => tool.name)).toEqual(["get_weather"]);

        const unknown = await request(t.app).post("/v1/messages").send(body({messages: [messages[0], messages[1], {role: "user", content: [{type: "tool_result", tool_use_id: "nope", content: "x"}]}]}));
        expect(unknown.status).toBe(400);
        expect(unknown.body.error.message).toContain("messages[2].content[0]");
        const server = await request(t.app).post("/v1/messages").send(body({tools, tool_choice: {type: "tool", name: "web_search"}}));
        expect(server.status).toBe(400);
    });

    it("answers errors in Anthropic's envelope with its types and statuses", async () => {
        const t = createTestApp({apiKeys: ["sekret"]});
        const missing = await request(t.app).post("/v1/messages").send(body());
        expect(missing.status).toBe(401);
        expect(missing.body).toEqual({type: "error", error: {type: "authentication_error", message: expect.any(String)}});
        const ok = await request(t.app).post("/v1/messages").set("x-api-key", "sekret").set("anthropic-version", "2023-06-01").send(body());
        expect(ok.status).toBe(200);

        const key = {"x-api-key": "sekret"};
        const noMax = await request(t.app).post("/v1/messages").set(key).send({model: MODEL, messages: [{role: "user", content: "hi"}]});
        expect(noMax.status).toBe(400);
        expect(noMax.body.error).toMatchObject({type: "invalid_request_error", message: expect.stringContaining("max_tokens")});
        const notFound = await request(t.app).post("/v1/messages").set(key).send(body({model: "nope"}));
        expect(notFound.body).toMatchObject({type: "error", error: {type: "not_found_error"}});
        expect(notFound.status).toBe(404);
        const doc = await request(t.app).post("/v1/messages").set(key).send(body({messages: [{role: "user", content: [{type: "document", source: {type: "text", data: "x"}}]}]}));
        expect(doc.status).toBe(400);
        expect(doc.body.error.message).toContain("document");
        const badJson = await request(t.app).post("/v1/messages").set(key).set("Content-Type", "application/json").send("{");
        expect(badJson.body).toMatchObject({type: "error", error: {type: "invalid_request_error"}});

        t.model.script = {pieces: [], busy: true};
        const busy = await request(t.app).post("/v1/messages").set(key).send(body());
        expect(busy.status).toBe(529);
        expect(busy.body.error.type).toBe("overloaded_error");
    });

    it("names the stop sequence that ended the reply", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["Hello"], stopSequence: "END"};
        const res = await request(t.app).post("/v1/messages").send(body({stop_sequences: ["END"]})).expect(200);
        expect(res.body).toMatchObject({stop_reason: "stop_sequence", stop_sequence: "END"});
        expect(t.model.generations[0]!.options.stop).toEqual(["END"]);
    });

    it("refuses stop_sequences of more than 16,384 characters together, naming the field", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/messages").send(body({stop_sequences: Array.from({length: 64}, () => "s".repeat(1000))}));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({type: "error", error: {type: "invalid_request_error", message: expect.stringContaining("stop_sequences")}});
        expect(res.body.error.message).toContain("at most 16384 characters in all");
        expect(t.model.generations).toHaveLength(0);
    });

    it("refuses more than 64 stop_sequences, naming the field", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/messages").send(body({stop_sequences: Array.from({length: 65}, (_, index) => `s${index}`)}));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({type: "error", error: {type: "invalid_request_error", message: expect.stringContaining("stop_sequences")}});
        expect(t.model.generations).toHaveLength(0);
        expect((await request(t.app).post("/v1/messages").send(body({stop_sequences: Array.from({length: 64}, (_, index) => `s${index}`)}))).status).toBe(200);
    });

    it("count_tokens renders the request without generating", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/messages/count_tokens").send({model: MODEL, messages: [{role: "user", content: "one two three"}]}).expect(200);
        expect(res.body).toEqual({input_tokens: 3});
        expect(t.model.generations).toHaveLength(0);
    });
});

describe("the base URL", () => {
    it("answers GET and HEAD / with 200 (Claude Code probes it)", async () => {
        const t = createTestApp();
        await request(t.app).head("/").expect(200);
        expect((await request(t.app).get("/").expect(200)).body).toMatchObject({name: "chatserve"});
    });
});
