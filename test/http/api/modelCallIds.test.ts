// A call the model names itself (Kimi K2's `functions.get_weather:0`, `:1`) keeps that name as
// its id in every API, as llama-server hands it out: the client sends it back with the tool's
// result, and the family's template writes it there (`## Return of functions.get_weather:0`).
import request from "supertest";
import {describe, expect, it} from "vitest";
import type {GenerationEvent} from "../../../src/engine/generationEvents.js";
import {dataEvents, namedEvents} from "../support/sse.js";
import {chatRequest, createTestApp, MODEL} from "../support/testApp.js";

const parameters = {type: "object", properties: {city: {type: "string"}}, required: ["city"]};
const named: Array<string | GenerationEvent> = [
    {type: "toolCall", index: 0, name: "get_weather", id: "functions.get_weather:0"},
    {type: "toolArguments", index: 0, text: "{\"city\": \"Paris\"}"},
    {type: "toolCall", index: 1, name: "get_weather", id: "functions.get_weather:1"},
    {type: "toolArguments", index: 1, text: "{\"city\": \"Oslo\"}"}
];
const ids = ["functions.get_weather:0", "functions.get_weather:1"];

function app() {
    const t = createTestApp();
    t.model.script = {pieces: named, finish: "toolCalls"};
    return t;
}

describe("a call's own id (Kimi K2's functions.NAME:N) in every API", () => {
    it("OpenAI chat, streamed and not; the ids come back with the results", async () => {
        const tools = [{type: "function", function: {name: "get_weather", parameters}}];
        const reply = await request(app().app).post("/v1/chat/completions").send(chatRequest({tools})).expect(200);
        expect(reply.body.choices[0].message.tool_calls.map((call: {id: string}) => call.id)).toEqual(ids);
        const streamed = dataEvents((await request(app().app).post("/v1/chat/completions").send(chatRequest({tools, stream: true})).expect(200)).text);
        const starts = streamed.filter((data) => data !== "[DONE]").flatMap((data) => JSON.parse(data).choices[0]?.delta.tool_calls ?? []).filter((call: {id?: string}) => call.id != null);
        expect(starts.map((call: {id: string}) => call.id)).toEqual(ids);

        const messages = [{role: "user", content: "Weather?"}, reply.body.choices[0].message,
            ...ids.map((id) => ({role: "tool", tool_call_id: id, content: "sunny"}))];
        await request(app().app).post("/v1/chat/completions").send(chatRequest({tools, messages})).expect(200);
    });

    it("Anthropic's tool_use ids, streamed and not", async () => {
        const body = {model: MODEL, max_tokens: 32, messages: [{role: "user", content: "Weather?"}], tools: [{name: "get_weather", input_schema: parameters}]};
        const reply = await request(app().app).post("/v1/messages").send(body).expect(200);
        expect(reply.body.content.map((block: {id: string}) => block.id)).toEqual(ids);
        const events = namedEvents((await request(app().app).post("/v1/messages").send({...body, stream: true}).expect(200)).text);
        expect(events.filter((event) => event.event === "content_block_start").map((event) => event.data.content_block.id)).toEqual(ids);
    });

    it("the Responses API's call_id and Ollama's call ids", async () => {
        const responses = await request(app().app).post("/v1/responses").send({model: MODEL, input: "Weather?", tools: [{type: "function", name: "get_weather", parameters}]}).expect(200);
        expect(responses.body.output.map((item: {call_id: string}) => item.call_id)).toEqual(ids);
        const ollama = await request(app().app).post("/api/chat")
            .send({model: MODEL, stream: false, messages: [{role: "user", content: "Weather?"}], tools: [{type: "function", function: {name: "get_weather", parameters}}]}).expect(200);
        expect(ollama.body.message.tool_calls.map((call: {id: string}) => call.id)).toEqual(ids);
    });
});
