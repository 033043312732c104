// Tool and response_format schemas over HTTP: without strict: true they are hints (what the grammar
// cannot enforce goes, the request is answered), with it the 400 names the keyword.
import request from "supertest";
import {describe, expect, it} from "vitest";
import {ConversationService} from "../../../../src/conversation/conversationService.js";
import {toConversation} from "../../../../src/api/openai-chat/toConversation.js";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";
import {createLogger} from "../../../../src/logger.js";
import {chatCompletionRequestSchema} from "../../../../src/api/openai-chat/chatCompletionRequest.js";
import {claudeCodeTools, fetchParameters, mcpFetchParameters, mcpIssueParameters} from "../../../fixtures/agentToolSchemas.js";
import {FakeModel} from "../../support/fakeEngine.js";
import {chatRequest, createTestApp, errorOf} from "../../support/testApp.js";

const fetchTool = (strict?: boolean) => ({type: "function", function: {name: "fetch", parameters: fetchParameters, ...(strict === undefined ? {} : {strict})}});
const call: GenerationEvent[] = [{type: "toolCall", index: 0, name: "fetch"}, {type: "toolArguments", index: 0, text: "{\"url\": \"https://example.com\", \"body\": \"\", \"branch\": \"main\"}"}];

describe("schemas without strict: true", () => {
    it("answers a tool whose parameters have a uri, a 100,000-character maxLength and a look-ahead pattern; the grammar gets plain strings", async () => {
        for (const strict of [undefined, false]) {
            const t = createTestApp();
            t.model.script = {pieces: call, finish: "toolCalls"};
            const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({tools: [fetchTool(strict)], tool_choice: "required"})).expect(200);
            expect(res.body.choices[0].message.tool_calls[0].function.name).toBe("fetch");
            const parameters = {
                type: "object", properties: {url: {type: "string", description: "The URL to fetch"}, body: {type: "string"}, branch: {type: "string"}},
                required: ["url", "body", "branch"], additionalProperties: false
            };
            expect(t.model.generations[0]!.options.format).toMatchObject({tools: [{name: "fetch", parameters}]});
            // The template documents the same parameters the grammar enforces.
            expect(t.model.renderedTools[0]!.parameters).toEqual(parameters);
        }
    });

    it("answers an agent's request carrying MCP servers' and Claude Code's tools, streamed", async () => {
        const tools = Object.entries({fetch: mcpFetchParameters, create_issue: mcpIssueParameters, ...claudeCodeTools})
            .map(([name, parameters]) => ({type: "function", function: {name, description: `The ${name} tool`, parameters}}));
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest({tools, stream: true})).buffer(true).expect(200);
        expect(res.text).toContain("data: [DONE]");
        expect(t.model.renderedTools.map((tool) => tool.name)).toEqual(["fetch", "create_issue", "WebFetch", "TodoWrite"]);
    });

    it("answers a response_format json_schema the same way", async () => {
        const t = createTestApp();
        t.model.script = {pieces: ["{}"]};
        await request(t.app).post("/v1/chat/completions")
            .send(chatRequest({response_format: {type: "json_schema", json_schema: {name: "page", schema: fetchParameters}}})).expect(200);
        expect(t.model.generations[0]!.options.format).toMatchObject({type: "json", schema: {properties: {url: {type: "string"}, body: {type: "string"}, branch: {type: "string"}}}});
    });
});

describe("schemas with strict: true", () => {
    it.each([
        ["a tool", {tools: [fetchTool(true)]}, "tools[0].function.parameters.properties.url.format"],
        ["a tool beside lenient ones", {tools: [{...fetchTool(), function: {...fetchTool().function, name: "loose"}}, fetchTool(true)]}, "tools[1].function.parameters.properties.url.format"],
        ["response_format", {response_format: {type: "json_schema", json_schema: {name: "page", strict: true, schema: fetchParameters}}}, "response_format.json_schema.schema.properties.url.format"],
        ["a maxLength above the limit", {tools: [{type: "function", function: {name: "f", strict: true, parameters: {type: "object", properties: {s: {type: "string", maxLength: 100_000}}}}}]}, "tools[0].function.parameters.properties.s.maxLength"],
        ["a pattern the grammar cannot follow", {tools: [{type: "function", function: {name: "f", strict: true, parameters: {type: "object", properties: {s: {type: "string", pattern: "^(?!-)x$"}}}}}]}, "tools[0].function.parameters.properties.s.pattern"]
    ])("%s: a 400 naming the keyword, before any generation", async (_case, extra, param) => {
        const t = createTestApp();
        const res = await request(t.app).post("/v1/chat/completions").send(chatRequest(extra)).expect(400);
        expect(errorOf(res.body)).toMatchObject({type: "invalid_request_error", code: "unsupported_schema_keyword", param, message: expect.stringContaining(param.split(".").at(-1)!)});
        expect(t.model.generations).toHaveLength(0);
    });
});

describe("the log", () => {
    it("has one debug line per request saying what its lenient schemas went without, and none when nothing was", async () => {
        const lines: string[] = [];
        const model = new FakeModel();
        const service = new ConversationService({acquire: async () => ({model, release: () => {}})}, createLogger("debug", {write: (line: string) => lines.push(line)}));
        const start = async (extra: Record<string, unknown>) =>
            (await service.start(toConversation(chatCompletionRequestSchema.parse(chatRequest(extra))), new AbortController().signal)).release();
        await start({tools: [fetchTool()]});
        await start({tools: [{type: "function", function: {name: "plain", parameters: {type: "object", properties: {a: {type: "string"}}}}}]});
        const logged = lines.map((line) => JSON.parse(line));
        expect(logged).toEqual([expect.objectContaining({
            level: 20, event: "schema_keywords_ignored", model: "tiny-chat", count: 3,
            ignored: [
                {param: "tools[0].function.parameters.properties.url.format", reason: expect.stringContaining("format 'uri'")},
                {param: "tools[0].function.parameters.properties.body.maxLength", reason: expect.any(String)},
                {param: "tools[0].function.parameters.properties.branch.pattern", reason: expect.any(String)}
            ]
        })]);
    });
});
