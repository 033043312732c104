// Properties not in `required` are optional in the grammar, as JSON Schema says: end to end, through
// the official client, on random-weight models whose every valid call is constrained decoding's work.
// Coding agents' tools are mostly optional parameters (Codex's exec_command has nine), and a model
// made to invent a value for each one asks for what nobody meant (sandbox_permissions: require_escalated).
import {Ajv} from "ajv";
import OpenAI from "openai";
import type {ChatCompletionMessageFunctionToolCall, ChatCompletionTool} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {hasSharedModels, sharedModels} from "../support/sharedModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/** Shaped after Codex's exec_command: one required parameter, then optional ones. */
const execParameters = {
    type: "object",
    properties: {
        cmd: {type: "string", maxLength: 24},
        workdir: {type: "string", maxLength: 16},
        timeout_ms: {type: "integer", minimum: 1, maximum: 600000},
        sandbox_permissions: {type: "string", enum: ["use_default", "require_escalated"]},
        login: {type: "boolean"}
    },
    required: ["cmd"],
    additionalProperties: false
};
/** Shaped after Qwen Code's read_file, with the required path last: any optional one may come first. */
const readParameters = {
    type: "object",
    properties: {offset: {type: "integer", minimum: 0}, limit: {type: "integer", minimum: 1}, absolute_path: {type: "string", maxLength: 24}},
    required: ["absolute_path"],
    additionalProperties: false
};
const optionalNames = {exec_command: ["workdir", "timeout_ms", "sandbox_permissions", "login"], read_file: ["offset", "limit"]};
const tools: ChatCompletionTool[] = [
    {type: "function", function: {name: "exec_command", description: "Runs a shell command", parameters: execParameters}},
    {type: "function", function: {name: "read_file", description: "Reads a file", parameters: readParameters, strict: true}}
];
const ajv = new Ajv({strict: false});
const validators = {exec_command: ajv.compile(execParameters), read_file: ajv.compile(readParameters)};
const messages = [{role: "user" as const, content: "List the files, then read README.md."}];

/** Each call's arguments, checked against its tool's schema (required properties included). */
function validArguments(calls: ChatCompletionMessageFunctionToolCall[] | undefined): Array<{name: keyof typeof validators, value: Record<string, unknown>}> {
    expect(calls?.length).toBeGreaterThan(0);
    return calls!.map((call) => {
        const name = call.function.name as keyof typeof validators;
        const validate = validators[name];
        expect(validate, `unknown function ${name}`).toBeDefined();
        const value = JSON.parse(call.function.arguments) as Record<string, unknown>;
        expect(validate(value), `${JSON.stringify(validate.errors)} in ${call.function.arguments}`).toBe(true);
        return {name, value};
    });
}

/** `seedCount`: how many replies of each kind; the shared Qwen model, with its 150k-token vocabulary, is slower to constrain. */
function optionalProperties(label: string, modelFile: () => Promise<string>, seedCount: number): void {
    const seeds = Array.from({length: seedCount}, (_, index) => index + 1);
    describe(label, () => {
        let server: TestServer;
        let client: OpenAI;
        beforeAll(async () => {
            server = await startTestServer({m: await modelFile()}, {ctxSize: 2048});
            client = server.client();
        });
        afterAll(async () => server?.stop());

        it("calls over several seeds at temperature 1 validate, keep their required properties, and leave optional ones out", async () => {
            const written = new Set<string>();
            const left = new Set<string>();
            for (const seed of seeds)
                for (const name of ["exec_command", "read_file"] as const) {
                    const reply = await client.chat.completions.create({
                        model: "m", messages, tools, tool_choice: {type: "function", function: {name}}, temperature: 1, seed, max_tokens: 200
                    });
                    expect(reply.choices[0]!.finish_reason).toBe("tool_calls");
                    for (const {value} of validArguments(reply.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[]))
                        for (const property of optionalNames[name])
                            (property in value ? written : left).add(`${name}.${property}`);
                }
            // Left out somewhere: before, every listed property was always written.
            expect(left.size).toBeGreaterThan(0);
            // And still written somewhere: optional is not forbidden.
            expect(written.size).toBeGreaterThan(0);
        }, 240_000);

        it("Responses API (Codex's wire): a function call whose arguments validate, optional properties optional", async () => {
            const calls = [];
            for (const seed of seeds.slice(0, 2)) {
                const response = await client.responses.create({
                    model: "m", input: "List the files.", temperature: 1, max_output_tokens: 200, tool_choice: {type: "function", name: "exec_command"},
                    tools: [{type: "function", name: "exec_command", parameters: execParameters, strict: false}],
                    // chatserve's extension, as in chat completions: OpenAI's Responses API has no seed.
                    ...{seed}
                });
                calls.push(...response.output.filter((item) => item.type === "function_call"));
            }
            expect(calls.length).toBe(2);
            for (const call of calls)
                expect(validators.exec_command(JSON.parse(call.arguments)), call.arguments).toBe(true);
        }, 120_000);

        it("with max_tokens too small for every property, a reply closes its object after the required one, valid", async () => {
            // Forty characters at least each: the budget holds the required one and a close, not the optional ones too
            // (which the grammar used to force, so the reply ran out inside them with finish_reason length).
            const long = {type: "string", minLength: 40};
            const schema = {type: "object", properties: {notes: long, more: long, extra: long}, required: ["notes"], additionalProperties: false};
            const validate = ajv.compile(schema);
            for (const seed of seeds.slice(0, 2)) {
                const json = await client.chat.completions.create({
                    model: "m", messages: [{role: "user", content: "A note."}], temperature: 1, seed, max_tokens: 60,
                    response_format: {type: "json_schema", json_schema: {name: "note", strict: true, schema}}
                });
                const content = json.choices[0]!.message.content!;
                expect(json.choices[0]!.finish_reason, content).toBe("stop");
                expect(validate(JSON.parse(content)), `${JSON.stringify(validate.errors)} in ${content}`).toBe(true);

                const call = await client.chat.completions.create({
                    model: "m", messages: [{role: "user", content: "A note."}], temperature: 1, seed, max_tokens: 80,
                    tools: [{type: "function", function: {name: "note", parameters: schema}}], tool_choice: {type: "function", function: {name: "note"}}
                });
                const [written] = call.choices[0]!.message.tool_calls as ChatCompletionMessageFunctionToolCall[];
                expect(validate(JSON.parse(written!.function.arguments)), `${JSON.stringify(validate.errors)} in ${written!.function.arguments}`).toBe(true);
            }
        }, 120_000);
    });
}

// The tiny tool-template model the tests build themselves: runs without ../shared.
optionalProperties("a tiny model with a Qwen-style tools template", () => buildTinyChatModel(undefined, {tools: true}), 6);

describe.runIf(hasSharedModels)("a real tool-calling template from ../shared/models", () => {
    optionalProperties("Qwen2.5 (QwenChatWrapper)", async () => sharedModels.qwenTools, 4);
});
