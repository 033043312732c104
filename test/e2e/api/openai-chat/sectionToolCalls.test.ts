// Tool calls on Mistral's templates, whose calls open with `[TOOL_CALLS]`, a control token that
// detokenizes to nothing: the server has to see the token itself to know a call began. A real
// server, tiny scripted models with Mistral's templates and control tokens, the official client.
import type {ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyMistralModel, MISTRAL_TEMPLATES} from "../../../fixtures/gguf/mistralModel.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const city = {type: "object", properties: {city: {type: "string", maxLength: 12}}, required: ["city"], additionalProperties: false};
const tools: ChatCompletionTool[] = [
    {type: "function", function: {name: "get_weather", description: "Current weather for a city", parameters: city}},
    {type: "function", function: {name: "get_time", description: "The time in a city", parameters: city}}
];
const question = [{role: "user" as const, content: "What is the weather in Paris?"}];
/** Room for a call: this vocabulary spells the call's markup mostly a character a token. */
const maxTokens = 120;
/** The model fills a string with `x` (MISTRAL_REPLY), up to the schema's 12 characters. */
const filledCity = /^x{1,12}$/;

/** Each call names a tool and its arguments fill the schema as this model does. */
type FunctionCall = {id: string, function: {name: string, arguments: string}};

function expectValidCalls(received: readonly unknown[] | undefined, count?: number): FunctionCall[] {
    const calls = received as FunctionCall[] | undefined;
    if (count != null)
        expect(calls).toHaveLength(count);
    expect(calls?.length).toBeGreaterThan(0);
    for (const call of calls!) {
        expect(call.function.name).toMatch(/^get_(weather|time)$/);
        expect(JSON.parse(call.function.arguments)).toEqual({city: expect.stringMatching(filledCity)});
    }
    return calls!;
}

describe.each(Object.keys(MISTRAL_TEMPLATES) as Array<keyof typeof MISTRAL_TEMPLATES>)("tool calls opened by [TOOL_CALLS] (Mistral, %s template)", (template) => {
    let server: TestServer;
    const model = `mistral-${template}`;

    beforeAll(async () => {
        server = await startTestServer({[model]: await buildTinyMistralModel(template)});
    });
    afterAll(async () => {
        await server?.stop();
    });

    it("reads a call the model opens under tool_choice auto", async () => {
        const reply = await server.client().chat.completions.create({model, messages: question, tools, parallel_tool_calls: false, max_tokens: maxTokens});
        const choice = reply.choices[0]!;
        expect(choice.finish_reason).toBe("tool_calls");
        expect(choice.message.content).toBeNull();
        expectValidCalls(choice.message.tool_calls, 1);
    });

    it("streams the calls, with no text before them", async () => {
        const stream = await server.client().chat.completions.create({model, messages: question, tools, max_tokens: maxTokens, stream: true});
        let content = "";
        const calls: Array<Omit<FunctionCall, "id">> = [];
        let finish: string | null = null;
        for await (const chunk of stream) {
            const choice = chunk.choices[0]!;
            content += choice.delta.content ?? "";
            for (const fragment of choice.delta.tool_calls ?? []) {
                const call = calls[fragment.index] ??= {function: {name: "", arguments: ""}};
                call.function.name += fragment.function?.name ?? "";
                call.function.arguments += fragment.function?.arguments ?? "";
            }
            finish = choice.finish_reason ?? finish;
        }
        expect({content, finish}).toEqual({content: "", finish: "tool_calls"});
        expectValidCalls(calls);
    });

    it("calls the named tool, or one of them when a call is required", async () => {
        const named = await server.client().chat.completions.create({
            model, messages: question, tools, tool_choice: {type: "function", function: {name: "get_time"}}, max_tokens: maxTokens
        });
        expect(expectValidCalls(named.choices[0]!.message.tool_calls, 1)[0]!.function.name).toBe("get_time");
        const required = await server.client().chat.completions.create({
            model, messages: question, tools, tool_choice: "required", parallel_tool_calls: false, max_tokens: maxTokens
        });
        expect(required.choices[0]!.finish_reason).toBe("tool_calls");
        expectValidCalls(required.choices[0]!.message.tool_calls, 1);
    });

    it("answers in text under tool_choice none, never opening a call", async () => {
        const reply = await server.client().chat.completions.create({model, messages: question, tools, tool_choice: "none", max_tokens: 8, temperature: 0});
        expect(reply.choices[0]!.message.tool_calls ?? []).toHaveLength(0);
        expect(reply.choices[0]!.message.content).toMatch(/x{6}/);
        expect(reply.choices[0]!.finish_reason).toBe("length");
    });

    it("takes the call and its result back in the next turn", async () => {
        const first = await server.client().chat.completions.create({model, messages: question, tools, parallel_tool_calls: false, max_tokens: maxTokens});
        const [call] = expectValidCalls(first.choices[0]!.message.tool_calls, 1);
        const reply = await server.client().chat.completions.create({
            model,
            messages: [...question, first.choices[0]!.message, {role: "tool", tool_call_id: call!.id, content: "{\"temperature\": 21}"}],
            tools,
            max_tokens: 8
        });
        // After a tool's result (not the user's [/INST]) this model writes text.
        expect(reply.choices[0]!.message.content).toMatch(/x{6}/);
        expect(reply.usage!.prompt_tokens).toBeGreaterThan(first.usage!.prompt_tokens + 10);
    });
});
