// Errors raised below the converters (the reply plan's schemas, the chat history's tool results)
// name each API's own request fields over HTTP: the conversation's parts and tools remember their
// wire path, so nothing is renamed on the way out. Pinned elsewhere, not repeated here: chat
// completions' strict tool schemas (lenientSchemas.test.ts), Responses' input[0].call_id
// (responses.test.ts), Messages' unknown tool_use_id at messages[2].content[0] (messages.test.ts).
import request from "supertest";
import {describe, expect, it} from "vitest";
import {chatRequest, createTestApp, errorOf, MODEL} from "../support/testApp.js";

/** An object schema whose `url` has a format the grammar cannot enforce: a 400 with strict: true. */
const uriSchema = {type: "object", properties: {url: {type: "string", format: "uri"}}, required: ["url"]};
const notAnObject = {type: "string"};

type Api = "/v1/chat/completions" | "/v1/messages" | "/v1/responses";

/** A request to each API offering one tool with these parameters. */
const withTool: Record<Api, (parameters: Record<string, unknown>, strict: boolean) => Record<string, unknown>> = {
    "/v1/chat/completions": (parameters, strict) => chatRequest({tools: [{type: "function", function: {name: "fetch", parameters, strict}}]}),
    "/v1/messages": (parameters, strict) => ({model: MODEL, max_tokens: 16, messages: [{role: "user", content: "Go"}], tools: [{name: "fetch", input_schema: parameters, strict}]}),
    "/v1/responses": (parameters, strict) => ({model: MODEL, input: "Go", tools: [{type: "function", name: "fetch", parameters, strict}]})
};

/** The 400's field: OpenAI's envelope has `param`; Anthropic's names it in the message. */
async function refusedField(api: Api, body: Record<string, unknown>, param: string): Promise<void> {
    const t = createTestApp();
    const res = await request(t.app).post(api).send(body);
    expect(res.status).toBe(400);
    if (api === "/v1/messages")
        expect(res.body).toMatchObject({type: "error", error: {type: "invalid_request_error", message: expect.stringContaining(param)}});
    else
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", param, code: expect.any(String)});
    expect(t.model.generations).toHaveLength(0);
}

describe("a tool's bad schema is named where the API holds it", () => {
    it.each<[Api, Record<string, unknown>, boolean, string]>([
        ["/v1/chat/completions", notAnObject, false, "tools[0].function.parameters"],
        ["/v1/messages", uriSchema, true, "tools[0].input_schema.properties.url.format"],
        ["/v1/messages", notAnObject, false, "tools[0].input_schema"],
        ["/v1/responses", uriSchema, true, "tools[0].parameters.properties.url.format"],
        ["/v1/responses", notAnObject, false, "tools[0].parameters"]
    ])("%s with parameters %j (strict %s): 400 naming %s", async (api, parameters, strict, param) => {
        await refusedField(api, withTool[api](parameters, strict), param);
    });

    it("a Responses namespace's function: its place inside the namespace", async () => {
        await refusedField("/v1/responses", {model: MODEL, input: "Go", tools: [
            {type: "function", name: "ok", parameters: {type: "object"}},
            {type: "namespace", name: "mcp__web", tools: [{type: "function", name: "fetch", parameters: uriSchema, strict: true}]}
        ]}, "tools[1].tools[0].parameters.properties.url.format");
    });
});

describe("a tool result answering no call is named where the API holds its call id", () => {
    it.each<[Api, Record<string, unknown>, string]>([
        ["/v1/chat/completions", chatRequest({messages: [
            {role: "user", content: "Go"},
            {role: "assistant", content: null, tool_calls: [{id: "call_1", type: "function", function: {name: "read", arguments: "{}"}}]},
            {role: "tool", tool_call_id: "nope", content: "42"}
        ]}), "messages[2].tool_call_id"],
        ["/v1/responses", {model: MODEL, input: [
            {role: "user", content: "Go"},
            {type: "function_call", call_id: "call_1", name: "read", arguments: "{}"},
            {type: "function_call_output", call_id: "nope", output: "42"}
        ]}, "input[2].call_id"]
    ])("%s: 400 naming %s", async (api, body, param) => {
        await refusedField(api, body, param);
    });
});
