// OpenAI's Responses API end to end: a real server, real GGUF models with tool-calling templates,
// the official client's `responses.create` and `responses.stream`. Random weights write gibberish:
// every valid call and JSON reply here is the work of constrained decoding.
import {Ajv} from "ajv";
import OpenAI from "openai";
import type {ResponseCreateParamsNonStreaming, ResponseFunctionToolCall, ResponseInputItem, Tool} from "openai/resources/responses/responses";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyThinkingModel, THINKING_REPLY} from "../../../fixtures/gguf/thinkingModel.js";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../../support/sharedModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const lookupParameters = {type: "object", properties: {id: {type: "string", maxLength: 8}}, required: ["id"], additionalProperties: false};
const validLookup = new Ajv({strict: false}).compile(lookupParameters);
/** As Codex sends them: plain functions, a namespace of MCP-style functions, and a hosted tool chatserve leaves out. */
const tools = [
    {type: "function", name: "shell", description: "Runs a command", parameters: {type: "object", properties: {command: {type: "string", maxLength: 20}}, required: ["command"]}, strict: false},
    {type: "namespace", name: "crm", description: "Customer records", tools: [{type: "function", name: "lookup", description: "Finds a customer", parameters: lookupParameters}]},
    {type: "web_search"}
] as unknown as Tool[];
const lookupChoice = {type: "function", name: "lookup", namespace: "crm"} as unknown as ResponseCreateParamsNonStreaming["tool_choice"];

function responsesConformance(label: string, modelFile: () => Promise<string>) {
    describe(`the Responses API on ${label}`, () => {
        let server: TestServer;
        let client: OpenAI;
        const base = {model: "m", temperature: 0, max_output_tokens: 48} as const;

        beforeAll(async () => {
            server = await startTestServer({m: await modelFile()}, {ctxSize: 2048});
            client = server.client();
        });
        afterAll(async () => server?.stop());

        it("answers text, streamed and not alike, with usage", async () => {
            const request = {...base, instructions: "Be brief.", input: "Tell me about the cat."};
            const reply = await client.responses.create(request);
            expect(reply.object).toBe("response");
            expect(["completed", "incomplete"]).toContain(reply.status);
            expect(reply.output[0]!.type).toBe("message");
            expect(reply.usage!.total_tokens).toBe(reply.usage!.input_tokens + reply.usage!.output_tokens);

            const stream = client.responses.stream(request);
            const types: string[] = [];
            for await (const event of stream)
                types.push(event.type);
            const streamed = await stream.finalResponse();
            expect(streamed.output_text).toBe(reply.output_text);
            expect(types.slice(0, 2)).toEqual(["response.created", "response.in_progress"]);
            expect(types).toContain("response.output_text.delta");
            expect(types.at(-1)).toBe(reply.status === "completed" ? "response.completed" : "response.incomplete");
        });

        it("calls a namespaced function, takes its output on the next turn (sent back whole, or by previous_response_id), and reuses the cached prefix", async () => {
            const question: ResponseInputItem[] = [{role: "user", content: "Who is customer 7?"}];
            const first = await client.responses.create({...base, max_output_tokens: 200, input: question, tools, tool_choice: lookupChoice, parallel_tool_calls: false});
            const call = first.output.find((item) => item.type === "function_call") as ResponseFunctionToolCall & {namespace?: string};
            expect(call).toMatchObject({name: "lookup", namespace: "crm", status: "completed"});
            expect(validLookup(JSON.parse(call.arguments))).toBe(true);

            const output = {type: "function_call_output" as const, call_id: call.call_id, output: "Ada Lovelace"};
            const whole = await client.responses.create({...base, input: [...question, ...first.output as ResponseInputItem[], output], tools, tool_choice: "none"});
            expect(whole.output.map((item) => item.type)).toEqual(["message"]);
            expect(whole.usage!.input_tokens_details.cached_tokens).toBeGreaterThan(first.usage!.input_tokens / 2);

            const chained = await client.responses.create({...base, previous_response_id: first.id, input: [output], tools, tool_choice: "none"});
            expect(chained.usage!.input_tokens).toBe(whole.usage!.input_tokens);
            expect(chained.output_text).toBe(whole.output_text);
        });

        it("streams a call's arguments as deltas and the finished call as output_item.done", async () => {
            const stream = client.responses.stream({...base, max_output_tokens: 200, input: "Who is customer 7?", tools, tool_choice: lookupChoice, parallel_tool_calls: false});
            let argumentsText = "";
            const done: string[] = [];
            for await (const event of stream) {
                if (event.type === "response.function_call_arguments.delta")
                    argumentsText += event.delta;
                if (event.type === "response.output_item.done")
                    done.push(event.item.type);
            }
            const final = await stream.finalResponse();
            const call = final.output[0] as ResponseFunctionToolCall & {namespace?: string};
            expect(call).toMatchObject({type: "function_call", name: "lookup", namespace: "crm", arguments: argumentsText});
            expect(done).toEqual(["function_call"]);
        });

        it("writes JSON matching text.format's schema", async () => {
            const schema = {type: "object", properties: {answer: {type: "string", maxLength: 10}}, required: ["answer"], additionalProperties: false};
            const reply = await client.responses.create({...base, max_output_tokens: 64, input: "Answer in JSON.", text: {format: {type: "json_schema", name: "a", schema, strict: true}}});
            expect(new Ajv({strict: false}).compile(schema)(JSON.parse(reply.output_text))).toBe(true);
        });

        it("answers errors in OpenAI's envelope with the Responses field named", async () => {
            await expect(client.responses.create({...base, model: "missing", input: "hi"})).rejects.toBeInstanceOf(OpenAI.NotFoundError);
            await expect(client.responses.create({...base, input: [{role: "user", content: [{type: "input_file", file_id: "f"}]}]}))
                .rejects.toMatchObject({status: 400, param: "input[0].content[0]"});
            await expect(client.responses.create({...base, input: "hi", tools, tool_choice: {type: "web_search"} as never}))
                .rejects.toMatchObject({status: 400, param: "tool_choice"});
            await expect(client.responses.retrieve("resp_unknown")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
        });
    });
}

responsesConformance("a tiny model with a Qwen-style tools template", () => buildTinyChatModel(undefined, {tools: true}));

describe.runIf(hasSharedModels)("real tool-calling templates from ../shared/models", () => {
    responsesConformance("Qwen2.5", async () => sharedModels.qwenTools);
    responsesConformance("Llama 3.2", async () => sharedModels.llama32Tools);
});

describe("the Responses API on a reasoning model", () => {
    let server: TestServer;
    beforeAll(async () => { server = await startTestServer({thinker: await buildTinyThinkingModel()}); });
    afterAll(async () => server?.stop());

    it("returns the thought as a reasoning item with a summary, streamed as summary deltas; effort none turns it off", async () => {
        const client = server.client();
        const reply = await client.responses.create({model: "thinker", input: "Say hello.", max_output_tokens: 40});
        expect(reply.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
        expect(reply.output[0]).toMatchObject({summary: [{type: "summary_text", text: THINKING_REPLY.reasoning}]});
        expect(reply.output_text).toBe(THINKING_REPLY.content);
        expect(reply.usage!.output_tokens_details.reasoning_tokens).toBe(3);

        const stream = client.responses.stream({model: "thinker", input: "Say hello.", max_output_tokens: 40});
        let summary = "";
        for await (const event of stream)
            if (event.type === "response.reasoning_summary_text.delta")
                summary += event.delta;
        expect(summary).toBe(THINKING_REPLY.reasoning);

        const plain = await client.responses.create({model: "thinker", input: "Say hello.", max_output_tokens: 40, reasoning: {effort: "none"}});
        expect(plain.output.map((item) => item.type)).not.toContain("reasoning");
    });
});
