// Tool schemas are hints unless the caller asks for strictness, end to end: the official client, a
// real server, the Qwen2.5 tools template on random weights (so every valid call is the grammar's
// work). What the grammar cannot enforce (format: "uri", maxLength: 100000, a look-ahead pattern)
// is left out without strict: true, and is a 400 naming the keyword with it.
import {Ajv} from "ajv";
import OpenAI from "openai";
import type {ChatCompletionMessageFunctionToolCall, ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {claudeCodeTools, fetchParameters, mcpFetchParameters, mcpIssueParameters} from "../../../fixtures/agentToolSchemas.js";
import {hasSharedModels, sharedModels} from "../../support/sharedModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const fetchTool = (strict?: boolean): ChatCompletionTool =>
    ({type: "function", function: {name: "fetch", description: "Fetch a page", parameters: fetchParameters, ...(strict === undefined ? {} : {strict})}});
const messages = [{role: "user" as const, content: "Fetch https://example.com on the main branch."}];
/** What the grammar enforces of fetchParameters without strict: the three strings, nothing else. */
const validFetch = new Ajv().compile({
    type: "object",
    properties: {url: {type: "string"}, body: {type: "string"}, branch: {type: "string"}},
    required: ["url", "body", "branch"],
    additionalProperties: false
});
/** A left recursion: llama.cpp's grammar parser refuses it, so only the fallback can serve it. */
const recursive = {$ref: "#/$defs/a", $defs: {a: {$ref: "#/$defs/a"}}};

/**
 * `maxTokens`: enough for a whole call in the model's vocabulary. `holdsAgentTools`: whether its
 * context holds the prompt of four agent tools (the tiny built model's 2,048 tokens do not).
 */
function lenientSchemas(label: string, modelFile: () => Promise<string>, {maxTokens, holdsAgentTools}: {maxTokens: number, holdsAgentTools: boolean}): void {
    describe(label, () => {
        let server: TestServer;
        let client: OpenAI;
        const base = {model: "m", messages, temperature: 0, max_tokens: maxTokens};

        beforeAll(async () => {
            server = await startTestServer({m: await modelFile()}, {ctxSize: 4096});
            client = server.client();
        });
        afterAll(async () => server?.stop());

        it("without strict: a tool with a uri, a 100,000-character maxLength and a look-ahead pattern is called, streamed and not", async () => {
            const request = {...base, tools: [fetchTool()], tool_choice: {type: "function" as const, function: {name: "fetch"}}};
            const reply = await client.chat.completions.create(request);
            expect(reply.choices[0]!.finish_reason).toBe("tool_calls");
            const [call] = reply.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[];
            expect(call!.function.name).toBe("fetch");
            const args = JSON.parse(call!.function.arguments);
            expect(validFetch(args), JSON.stringify(validFetch.errors)).toBe(true);

            let streamed = "";
            for await (const chunk of await client.chat.completions.create({...request, stream: true}))
                streamed += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
            expect(streamed).toBe(call!.function.arguments);
        });

        it("with strict: true, the same tool is a 400 naming the keyword; so is a strict json_schema", async () => {
            const error = await client.chat.completions.create({...base, tools: [fetchTool(true)]}).catch((caught: unknown) => caught);
            expect(error).toBeInstanceOf(OpenAI.BadRequestError);
            expect(error).toMatchObject({status: 400, code: "unsupported_schema_keyword", param: "tools[0].function.parameters.properties.url.format"});
            expect((error as Error).message).toContain("'uri'");
            const strictJson = client.chat.completions.create({...base, response_format: {type: "json_schema", json_schema: {name: "page", strict: true, schema: fetchParameters}}});
            await expect(strictJson).rejects.toMatchObject({status: 400, param: "response_format.json_schema.schema.properties.url.format"});
        });

        it.runIf(holdsAgentTools)("an agent's MCP and Claude Code tools, none strict, are rendered and a forced call is valid JSON", async () => {
            const tools: ChatCompletionTool[] = Object.entries({fetch: mcpFetchParameters, create_issue: mcpIssueParameters, ...claudeCodeTools})
                .map(([name, parameters]) => ({type: "function", function: {name, description: `The ${name} tool`, parameters}}));
            const reply = await client.chat.completions.create({...base, tools, tool_choice: "required", parallel_tool_calls: false});
            expect(reply.choices[0]!.finish_reason).toBe("tool_calls");
            const [call] = reply.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[];
            expect(Object.keys({fetch: 1, create_issue: 1, ...claudeCodeTools})).toContain(call!.function.name);
            expect(typeof JSON.parse(call!.function.arguments)).toBe("object");
        });

        it("a schema llama.cpp cannot compile: without strict, any JSON value instead; with strict, a 400", async () => {
            const lenient = await client.chat.completions.create({...base, max_tokens: 48, response_format: {type: "json_schema", json_schema: {name: "r", schema: recursive}}});
            expect(() => JSON.parse(lenient.choices[0]!.message.content!)).not.toThrow();
            const strict = client.chat.completions.create({...base, stream: true, response_format: {type: "json_schema", json_schema: {name: "r", strict: true, schema: recursive}}});
            await expect(strict).rejects.toMatchObject({status: 400, param: "response_format", code: "unsupported_schema_keyword"});
        });
    });
}

describe.runIf(hasSharedModels)("tiny-random-qwen2.5-chatml-tools (../shared/models)", () => {
    lenientSchemas("Qwen2.5 template", async () => sharedModels.qwenTools, {maxTokens: 64, holdsAgentTools: true});
});

// The tiny tool-template model the tests build themselves: runs without ../shared.
lenientSchemas("a tiny model with a Qwen-style tools template", () => buildTinyChatModel(undefined, {tools: true}), {maxTokens: 160, holdsAgentTools: false});
