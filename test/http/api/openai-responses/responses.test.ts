// The Responses API on the wire, over the engine double: the response object, the event stream,
// namespaced calls, the store and its per-key separation, and errors naming the Responses fields.
import request from "supertest";
import {describe, expect, it} from "vitest";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";
import {namedEvents} from "../../support/sse.js";
import {createTestApp, errorOf, MODEL} from "../../support/testApp.js";

const lookup = {type: "function", name: "lookup", parameters: {type: "object", properties: {id: {type: "string"}}}};
const namespaced: Array<string | GenerationEvent> = [
    {type: "toolCall", index: 0, name: "crm__lookup"},
    {type: "toolArguments", index: 0, text: "{\"id\": \"7\"}"}
];

describe("POST /v1/responses", () => {
    it("answers a response object: a message item with the text, status completed, usage", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/responses").send({model: MODEL, input: "Say hello", instructions: "Be brief."}).expect(200);
        expect(res.body).toMatchObject({object: "response", status: "completed", model: MODEL, instructions: "Be brief.", error: null, incomplete_details: null});
        expect(res.body.id).toMatch(/^resp_/);
        expect(res.body.output).toEqual([{
            id: expect.stringMatching(/^msg_/), type: "message", status: "completed", role: "assistant",
            content: [{type: "output_text", text: "Hello there!", annotations: [], logprobs: []}]
        }]);
        expect(res.body.usage).toMatchObject({output_tokens: 3, input_tokens_details: {cached_tokens: 0}, output_tokens_details: {reasoning_tokens: 0}});
        expect(res.body.usage.total_tokens).toBe(res.body.usage.input_tokens + 3);
    });

    it("streams every event with its sequence number, ending with response.completed", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/responses").send({model: MODEL, input: "Say hello", stream: true}).expect(200);
        const events = namedEvents(res.text);
        expect(events.map((event) => event.event)).toEqual([
            "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
            "response.output_text.delta", "response.output_text.delta", "response.output_text.delta",
            "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"
        ]);
        expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_event, index) => index));
        expect(events[0]!.data.response).toMatchObject({status: "in_progress", output: []});
        expect(events.at(-2)!.data.item.content[0].text).toBe("Hello there!");
        expect(events.at(-1)!.data.response).toMatchObject({status: "completed", usage: {output_tokens: 3}});
    });

    it("a namespaced function is shown to the model as namespace__name and comes back as {name, namespace}", async () => {
        const t = createTestApp();
        t.model.script = {pieces: namespaced, finish: "toolCalls"};
        const tools = [{type: "namespace", name: "crm", description: "CRM", tools: [lookup]}, {type: "web_search"}];
        const res = await request(t.app).post("/v1/responses").send({model: MODEL, input: "find 7", tools}).expect(200);
        expect(t.model.renderedTools.map((tool) => tool.name)).toEqual(["crm__lookup"]);
        expect(res.body.output).toEqual([{
            id: expect.stringMatching(/^fc_/), type: "function_call", status: "completed", call_id: expect.stringMatching(/^call_/),
            name: "lookup", namespace: "crm", arguments: "{\"id\": \"7\"}"
        }]);

        // The next turn sends the call back as it came, with its output: the model sees its own call again.
        const call = res.body.output[0];
        t.model.script = {pieces: ["Found."]};
        const next = await request(t.app).post("/v1/responses").send({
            model: MODEL, tools, input: [{role: "user", content: "find 7"}, call, {type: "function_call_output", call_id: call.call_id, output: "Ada"}]
        }).expect(200);
        expect(next.body.output[0].content[0].text).toBe("Found.");
    });

    it("leaves hosted tools out, but refuses a tool_choice that names one", async () => {
        const t = createTestApp();
        await request(t.app).post("/v1/responses").send({model: MODEL, input: "hi", tools: [{type: "web_search"}, {type: "file_search", vector_store_ids: []}]}).expect(200);
        expect(t.model.renderedTools).toEqual([]);
        const res = await request(t.app).post("/v1/responses").send({model: MODEL, input: "hi", tools: [{type: "web_search"}], tool_choice: {type: "web_search"}});
        expect(res.status).toBe(400);
        expect(errorOf(res.body)).toMatchObject({param: "tool_choice", code: "unsupported_tool"});
    });

    it("max_output_tokens cuts the reply: status incomplete, reason max_output_tokens", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/responses").send({model: MODEL, input: "hi", max_output_tokens: 2}).expect(200);
        expect(res.body).toMatchObject({status: "incomplete", incomplete_details: {reason: "max_output_tokens"}});
        expect(res.body.output[0]).toMatchObject({status: "incomplete", content: [{text: "Hello there"}]});
        const streamed = await request(t.app).post("/v1/responses").send({model: MODEL, input: "hi", max_output_tokens: 2, stream: true}).expect(200);
        expect(namedEvents(streamed.text).at(-1)).toMatchObject({event: "response.incomplete", data: {response: {status: "incomplete"}}});
    });

    it("errors name the Responses request's fields", async () => {
        const t = createTestApp();
        const part = await request(t.app).post("/v1/responses").send({model: MODEL, input: [{role: "user", content: [{type: "input_file", file_id: "f"}]}]});
        expect(part.status).toBe(400);
        expect(errorOf(part.body).param).toBe("input[0].content[0]");
        const orphan = await request(t.app).post("/v1/responses").send({model: MODEL, input: [{type: "function_call_output", call_id: "nope", output: "x"}]});
        expect(errorOf(orphan.body)).toMatchObject({param: "input[0].call_id"});
        const schema = await request(t.app).post("/v1/responses").send({model: MODEL, input: "hi", text: {format: {type: "json_schema", name: "x", schema: {type: "object"}, strict: true}}, max_output_tokens: 0});
        expect(errorOf(schema.body).param).toBe("max_output_tokens");
        const unknown = await request(t.app).post("/v1/responses").send({model: "nope", input: "hi"});
        expect(unknown.status).toBe(404);
        const item = await request(t.app).post("/v1/responses").send({model: MODEL, input: [{type: "function_call", name: "x"}]});
        expect(errorOf(item.body)).toMatchObject({param: "input[0].call_id", message: "Invalid 'input[0].call_id': missing: a function_call needs it."});
    });
});

describe("stored responses", () => {
    it("previous_response_id continues a stored conversation; GET and DELETE find it; store false keeps nothing", async () => {
        const t = createTestApp();
        const first = await request(t.app).post("/v1/responses").send({model: MODEL, input: "Say hello"}).expect(200);
        t.model.script = {pieces: ["Again."]};
        const second = await request(t.app).post("/v1/responses").send({model: MODEL, input: "once more", previous_response_id: first.body.id}).expect(200);
        expect(second.body.previous_response_id).toBe(first.body.id);
        // The model saw the first turn, its reply, and the new input (one token per word in the double).
        expect(second.body.usage.input_tokens).toBe(first.body.usage.input_tokens + 2 + 2);

        expect((await request(t.app).get(`/v1/responses/${second.body.id}`).expect(200)).body).toEqual(second.body);
        await request(t.app).delete(`/v1/responses/${second.body.id}`).expect(200);
        expect(errorOf((await request(t.app).get(`/v1/responses/${second.body.id}`).expect(404)).body).param).toBe("response_id");

        const unstored = await request(t.app).post("/v1/responses").send({model: MODEL, input: "hi", store: false}).expect(200);
        await request(t.app).get(`/v1/responses/${unstored.body.id}`).expect(404);
        const missing = await request(t.app).post("/v1/responses").send({model: MODEL, input: "hi", previous_response_id: unstored.body.id}).expect(400);
        expect(errorOf(missing.body)).toMatchObject({param: "previous_response_id", code: "previous_response_not_found"});
    });

    it("one API key cannot read or continue another's responses", async () => {
        const t = createTestApp({apiKeys: ["alice", "bob"]});
        const alice = await request(t.app).post("/v1/responses").set("Authorization", "Bearer alice").send({model: MODEL, input: "hi"}).expect(200);
        await request(t.app).get(`/v1/responses/${alice.body.id}`).set("Authorization", "Bearer alice").expect(200);
        await request(t.app).get(`/v1/responses/${alice.body.id}`).set("Authorization", "Bearer bob").expect(404);
        await request(t.app).post("/v1/responses").set("Authorization", "Bearer bob").send({model: MODEL, input: "hi", previous_response_id: alice.body.id}).expect(400);
    });

    it("input_tokens counts the prompt without generating", async () => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/responses/input_tokens").send({model: MODEL, input: "one two three"}).expect(200);
        expect(res.body).toEqual({object: "response.input_tokens", input_tokens: 3});
        expect(t.model.generations).toHaveLength(0);
    });
});
