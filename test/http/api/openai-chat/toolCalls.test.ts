// Tool calls and JSON replies on the wire, over the engine double: the shapes clients parse and the 400s.
import request from "supertest";
import {describe, expect, it} from "vitest";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";
import {dataEvents} from "../../support/sse.js";
import {chatRequest, createTestApp, errorOf} from "../../support/testApp.js";

const weather = {type: "function", function: {name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}}};

/** The engine double writes text, then two calls, their arguments in pieces. */
const twoCalls: Array<string | GenerationEvent> = [
    "Checking.",
    {type: "toolCall", index: 0, name: "get_weather"},
    {type: "toolArguments", index: 0, text: "{\"city\": "},
    {type: "toolArguments", index: 0, text: "\"Paris\"}"},
    {type: "toolCall", index: 1, name: "get_weather"},
    {type: "toolArguments", index: 1, text: "{\"city\": \"Oslo\"}"}
];

describe("tool calls over HTTP", () => {
    it("non-streamed: tool_calls with string arguments, the text before them, finish_reason tool_calls", async () => {
        const t = createTestApp();
        t.model.script = {pieces: twoCalls, finish: "toolCalls"};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({tools: [weather]})).expect(200);

        const [choice] = res.body.choices;
        expect(choice.finish_reason).toBe("tool_calls");
        expect(choice.message.content).toBe("Checking.");
        expect(choice.message.tool_calls).toEqual([
            {id: expect.stringMatching(/^call_/), type: "function", function: {name: "get_weather", arguments: "{\"city\": \"Paris\"}"}},
            {id: expect.stringMatching(/^call_/), type: "function", function: {name: "get_weather", arguments: "{\"city\": \"Oslo\"}"}}
        ]);
        expect(choice.message.tool_calls[0].id).not.toBe(choice.message.tool_calls[1].id);
        // The engine got the tools to render and the format to enforce.
        expect(t.model.renderedTools.map((tool) => tool.name)).toEqual(["get_weather"]);
        expect(t.model.generations[0]!.options.format).toMatchObject({type: "toolCalls", choice: "auto", parallel: true});
    });

    it("non-streamed: content is null when the reply is only calls", async () => {
        const t = createTestApp();
        t.model.script = {pieces: twoCalls.slice(1, 4), finish: "toolCalls"};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({tools: [weather], tool_choice: "required"})).expect(200);
        expect(res.body.choices[0].message).toMatchObject({role: "assistant", content: null});
        expect(t.model.generations[0]!.options.format).toMatchObject({choice: "required"});
    });

    it("streamed: the first fragment of each call has id, type, name and empty arguments; later ones only arguments", async () => {
        const t = createTestApp();
        t.model.script = {pieces: twoCalls, finish: "toolCalls"};
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({tools: [weather], stream: true})).buffer(true).expect(200);
        const events = dataEvents(res.text);
        expect(events.at(-1)).toBe("[DONE]");
        const deltas = events.slice(0, -1).map((event) => JSON.parse(event).choices[0]);

        expect(deltas.map((choice) => choice.delta)).toEqual([
            {role: "assistant", content: ""},
            {content: "Checking."},
            {tool_calls: [{index: 0, id: expect.stringMatching(/^call_/), type: "function", function: {name: "get_weather", arguments: ""}}]},
            {tool_calls: [{index: 0, function: {arguments: "{\"city\": "}}]},
            {tool_calls: [{index: 0, function: {arguments: "\"Paris\"}"}}]},
            {tool_calls: [{index: 1, id: expect.stringMatching(/^call_/), type: "function", function: {name: "get_weather", arguments: ""}}]},
            {tool_calls: [{index: 1, function: {arguments: "{\"city\": \"Oslo\"}"}}]},
            {}
        ]);
        expect(deltas.at(-1).finish_reason).toBe("tool_calls");
        expect(deltas.slice(0, -1).every((choice) => choice.finish_reason === null)).toBe(true);
    });

    it("streamed with tool_choice required: the first chunk announces the role with content null, as OpenAI's", async () => {
        const t = createTestApp();
        t.model.script = {pieces: twoCalls.slice(1, 4), finish: "toolCalls"};
        const res = await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({tools: [weather], tool_choice: "required", stream: true})).buffer(true).expect(200);
        expect(JSON.parse(dataEvents(res.text)[0]!).choices[0].delta).toEqual({role: "assistant", content: null});
    });

    it("passes a JSON response_format to the engine", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["{\"a\":", " 1}"]};
        const res = await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({response_format: {type: "json_schema", json_schema: {name: "a", strict: true, schema: {type: "object", properties: {a: {type: "integer"}}, required: ["a"], additionalProperties: false}}}}))
            .expect(200);
        expect(JSON.parse(res.body.choices[0].message.content)).toEqual({a: 1});
        expect(t.model.generations[0]!.options.format).toEqual({
            type: "json", schema: {type: "object", properties: {a: {type: "integer"}}, required: ["a"], additionalProperties: false}
        });
    });

    it("tools with a JSON response_format: auto is calls or that JSON, and a model without tools gives the JSON alone", async () => {
        const json = {type: "json_schema", json_schema: {name: "a", schema: {type: "object", properties: {a: {type: "integer"}}, required: ["a"]}}};
        const schema = {type: "object", properties: {a: {type: "integer"}}, required: ["a"], additionalProperties: false};
        const t = createTestApp();
        t.model.script = {pieces: ["{\"a\": 1}"]};
        const streamed = await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({tools: [weather], response_format: json, stream: true})).buffer(true).expect(200);
        const chunks = dataEvents(streamed.text).slice(0, -1).map((data) => JSON.parse(data));
        // Text may come, so the first chunk's content is "" (null would promise calls only).
        expect(chunks[0].choices[0].delta).toEqual({role: "assistant", content: ""});
        expect(chunks.map((chunk) => chunk.choices[0].delta.content ?? "").join("")).toBe("{\"a\": 1}");
        expect(t.model.generations[0]!.options.format).toMatchObject({type: "toolCalls", choice: "auto", answer: {schema}});

        t.model.supportsTools = false;
        await request(t.app).post("/v1/chat/completions").send(chatRequest({tools: [weather], response_format: json})).expect(200);
        expect(t.model.generations[1]!.options.format).toEqual({type: "json", schema});
    });

    it.each([
        [{tool_choice: "required"}, "tool_choice"],
        [{tool_choice: "auto"}, "tool_choice"],
        [{tools: [weather, weather]}, "tools"],
        [{tools: [weather], tool_choice: {type: "function", function: {name: "nope"}}}, "tool_choice"],
        [{tools: [{type: "custom", custom: {name: "x"}}]}, "tools[0].type"],
        [{tools: [{type: "function", function: {name: "bad name!"}}]}, "tools[0].function.name"],
        [{response_format: {type: "json_schema", json_schema: {name: "x", strict: true, schema: {type: "string", pattern: "(?=a)a+"}}}}, "response_format.json_schema.schema.pattern"],
        [{response_format: {type: "yaml"}}, "response_format.type"],
        [{tools: [weather], tool_choice: "always"}, "tool_choice"],
        [{model: "sub/nested", tools: [weather], tool_choice: "required"}, "model"]
    ])("rejects %j with a 400 naming %s and a code, before any generation", async (extra, param) => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest(extra));
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", param, code: expect.any(String)});
        expect(t.model.generations).toHaveLength(0);
    });
});
