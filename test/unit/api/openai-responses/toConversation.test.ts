import {describe, expect, it} from "vitest";
import {inputItemSchema, responsesRequestSchema, type InputItem} from "../../../../src/api/openai-responses/responsesRequest.js";
import {toConversation, type SourcedItem} from "../../../../src/api/openai-responses/toConversation.js";
import type {Message} from "../../../../src/conversation/conversation.js";
import {BadRequestError} from "../../../../src/errors.js";
import {expectFields, type ExpectedFields, type ExpectedRefusal} from "../../support/conversationFields.js";
import {thrownError} from "../../support/thrownError.js";

/**
 * A Responses body (input "Hi" unless the case sends one), after the items of a stored earlier
 * response (`earlier`), sourced as responsesService.ts sources them → the conversation and its tools.
 */
const convert = (fields: Record<string, unknown>, earlier: unknown[] = []) => {
    const request = responsesRequestSchema.parse({model: "m", input: "Hi", ...fields});
    const input: InputItem[] = typeof request.input === "string" ? [{role: "user", content: request.input}] : request.input ?? [];
    const sourced: SourcedItem[] = [
        ...earlier.map((item) => ({item: inputItemSchema.parse(item), param: null})),
        ...input.map((item, index) => ({item, param: typeof request.input === "string" ? "input" : `input[${index}]`}))
    ];
    return toConversation(request, sourced);
};

const user = (text: string, path: string): Message => ({role: "user", parts: [{type: "text", text}], path});
const fnCall = (callId: string, name = "read", args = "{}", extra: Record<string, unknown> = {}) => ({type: "function_call", call_id: callId, name, arguments: args, ...extra});
const fnOutput = (callId: string, output: unknown) => ({type: "function_call_output", call_id: callId, output});
const reasoning = (text: string) => ({type: "reasoning", summary: [{type: "summary_text", text}]});

/** `earlier`: the items of the stored response the request continues. */
type Case = [name: string, fields: Record<string, unknown>, expected: ExpectedFields, earlier?: unknown[]];

describe("OpenAI Responses toConversation: instructions and messages", () => {
    const cases: Case[] = [
        ["a string input is the user's message, named input", {}, {messages: [user("Hi", "input")], promptPath: "input"}],
        ["instructions are a system message named instructions", {instructions: "Be brief."},
            {messages: [{role: "system", parts: [{type: "text", text: "Be brief."}], path: "instructions"}, user("Hi", "input")]}],
        ["empty instructions are no message", {instructions: ""}, {messages: [user("Hi", "input")]}],
        ["system and developer messages are system messages", {input: [{role: "system", content: "A."}, {role: "developer", content: [{type: "input_text", text: "B."}]}, {role: "user", content: "Hi"}]},
            {messages: [
                {role: "system", parts: [{type: "text", text: "A."}], path: "input[0]"},
                {role: "system", parts: [{type: "text", text: "B."}], path: "input[1]", wireRole: "developer"},
                user("Hi", "input[2]")
            ]}],
        ["a user's input_text, output_text and refusal parts are text", {input: [{type: "message", role: "user", content: [
            {type: "input_text", text: "a"}, {type: "output_text", text: "b", annotations: []}, {type: "refusal", refusal: "c"}
        ]}]}, {messages: [{role: "user", parts: [{type: "text", text: "a"}, {type: "text", text: "b"}, {type: "text", text: "c"}], path: "input[0]"}]}],
        ["an input_image, named by its part and its image_url", {input: [{role: "user", content: [{type: "input_text", text: "Look"}, {type: "input_image", image_url: "https://x/y.png", detail: "low"}]}]},
            {messages: [{role: "user", path: "input[0]", parts: [
                {type: "text", text: "Look"},
                {type: "image", url: "https://x/y.png", path: "input[0].content[1]", urlPath: "input[0].content[1].image_url"}
            ]}]}],
        ["an assistant's output_text and refusal parts are one text", {input: [{role: "user", content: "Hi"}, {role: "assistant", content: [
            {type: "output_text", text: "Hel"}, {type: "output_text", text: "lo."}, {type: "refusal", refusal: " No."}
        ]}]}, {messages: [user("Hi", "input[0]"), {role: "assistant", parts: [{type: "text", text: "Hello. No."}], path: "input[1]"}]}],
        ["an item of a stored earlier response is named previous_response_id", {input: [{role: "user", content: "And now?"}]},
            {messages: [user("Before", "previous_response_id"), {role: "assistant", parts: [{type: "text", text: "Yes."}], path: "previous_response_id"}, user("And now?", "input[0]")]},
            [{role: "user", content: "Before"}, {type: "message", role: "assistant", content: [{type: "output_text", text: "Yes."}]}]]
    ];

    it.each(cases)("%s", (_name, fields, expected, earlier) => expectFields(convert(fields, earlier).conversation, expected));

    it("names a stored response's image by previous_response_id, its part and its URL alike", () => {
        const {conversation} = convert({}, [{role: "user", content: [{type: "input_image", image_url: "https://x/old.png"}]}]);
        expect(conversation.messages[0]).toEqual({role: "user", path: "previous_response_id", parts: [
            {type: "image", url: "https://x/old.png", path: "previous_response_id", urlPath: "previous_response_id"}
        ]});
    });
});

describe("OpenAI Responses toConversation: calls, their outputs and reasoning", () => {
    const cases: Case[] = [
        ["a call joins the assistant message before it, whose empty text goes", {input: [
            {role: "user", content: "Go"}, {role: "assistant", content: [{type: "output_text", text: ""}]}, fnCall("c1"), fnCall("c2", "write", "{\"a\":1}")
        ]}, {messages: [user("Go", "input[0]"), {role: "assistant", path: "input[1]", parts: [
            {type: "toolCall", id: "c1", name: "read", arguments: "{}"}, {type: "toolCall", id: "c2", name: "write", arguments: "{\"a\":1}"}
        ]}]}],
        ["a call after the assistant's words keeps them", {input: [{role: "user", content: "Go"}, {role: "assistant", content: "Reading."}, fnCall("c1")]},
            {messages: [user("Go", "input[0]"), {role: "assistant", path: "input[1]", parts: [
                {type: "text", text: "Reading."}, {type: "toolCall", id: "c1", name: "read", arguments: "{}"}
            ]}]}],
        ["a call with no assistant message before it opens one", {input: [{role: "user", content: "Go"}, fnCall("c1")]},
            {messages: [user("Go", "input[0]"), {role: "assistant", parts: [{type: "toolCall", id: "c1", name: "read", arguments: "{}"}], path: "input[1]"}]}],
        ["a call in a namespace is named namespace__name", {input: [{role: "user", content: "Go"}, fnCall("c1", "list", "{}", {namespace: "mcp__files"})]},
            {messages: [user("Go", "input[0]"), {role: "assistant", parts: [{type: "toolCall", id: "c1", name: "mcp__files__list", arguments: "{}"}], path: "input[1]"}]}],
        ["a custom tool's call: its input as arguments", {input: [{role: "user", content: "Go"}, {type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin"}]},
            {messages: [user("Go", "input[0]"), {role: "assistant", parts: [{type: "toolCall", id: "c1", name: "apply_patch", arguments: "{\"input\":\"*** Begin\"}"}], path: "input[1]"}]}],
        ["a call's output is a tool result naming its call_id", {input: [{role: "user", content: "Go"}, fnCall("c1"), fnOutput("c1", "42")]},
            {messages: [user("Go", "input[0]"), {role: "assistant", parts: [{type: "toolCall", id: "c1", name: "read", arguments: "{}"}], path: "input[1]"},
                {role: "user", path: "input[2]", parts: [{type: "toolResult", callId: "c1", path: "input[2]", callIdPath: "input[2].call_id", content: [{type: "text", text: "42"}]}]}]}],
        ["an output's parts, an image named inside the output", {input: [fnOutput("c1", [{type: "input_text", text: "shot:"}, {type: "input_image", image_url: "data:image/png;base64,AAAA"}])]},
            {messages: [{role: "user", path: "input[0]", parts: [{type: "toolResult", callId: "c1", path: "input[0]", callIdPath: "input[0].call_id", content: [
                {type: "text", text: "shot:"},
                {type: "image", url: "data:image/png;base64,AAAA", path: "input[0].output[1]", urlPath: "input[0].output[1].image_url"}
            ]}]}]}],
        ["a custom tool call's output is a tool result too", {input: [{type: "custom_tool_call_output", call_id: "c1", output: "patched"}]},
            {messages: [{role: "user", path: "input[0]", parts: [{type: "toolResult", callId: "c1", path: "input[0]", callIdPath: "input[0].call_id", content: [{type: "text", text: "patched"}]}]}]}],
        ["a reasoning item's summary is the thought of the assistant message after it", {input: [{role: "user", content: "Hi"}, reasoning("Greet back."), {role: "assistant", content: "Hello!"}]},
            {messages: [user("Hi", "input[0]"), {role: "assistant", path: "input[2]", parts: [{type: "thought", text: "Greet back."}, {type: "text", text: "Hello!"}]}]}],
        ["a reasoning item's content, over its summary, lines joined", {input: [{role: "user", content: "Hi"}, {type: "reasoning", summary: [{type: "summary_text", text: "short"}], content: [
            {type: "reasoning_text", text: "one"}, {type: "reasoning_text", text: "two"}
        ]}, {role: "assistant", content: "Hello!"}]}, {messages: [user("Hi", "input[0]"), {role: "assistant", path: "input[2]", parts: [
            {type: "thought", text: "one\ntwo"}, {type: "text", text: "Hello!"}
        ]}]}],
        ["a reasoning item before a call opens a new assistant message with the thought", {input: [
            {role: "user", content: "Go"}, {role: "assistant", content: "First."}, reasoning("Now read."), fnCall("c1")
        ]}, {messages: [user("Go", "input[0]"), {role: "assistant", parts: [{type: "text", text: "First."}], path: "input[1]"},
            {role: "assistant", path: "input[3]", parts: [{type: "thought", text: "Now read."}, {type: "toolCall", id: "c1", name: "read", arguments: "{}"}]}]}],
        ["a reasoning item with an empty content list: its summary", {input: [{role: "user", content: "Hi"}, {type: "reasoning", summary: [{type: "summary_text", text: "short"}], content: []},
            {role: "assistant", content: "Hello!"}]}, {messages: [user("Hi", "input[0]"), {role: "assistant", path: "input[2]", parts: [
            {type: "thought", text: "short"}, {type: "text", text: "Hello!"}
        ]}]}],
        ["an agent's turn: a thought and a call, its output, a thought and the answer", {input: [
            {role: "user", content: "Go"}, reasoning("Read it."), fnCall("c1"), fnOutput("c1", "42"), reasoning("Got it."), {role: "assistant", content: "It is 42."}
        ]}, {messages: [user("Go", "input[0]"),
            {role: "assistant", path: "input[2]", parts: [{type: "thought", text: "Read it."}, {type: "toolCall", id: "c1", name: "read", arguments: "{}"}]},
            {role: "user", path: "input[3]", parts: [{type: "toolResult", callId: "c1", path: "input[3]", callIdPath: "input[3].call_id", content: [{type: "text", text: "42"}]}]},
            {role: "assistant", path: "input[5]", parts: [{type: "thought", text: "Got it."}, {type: "text", text: "It is 42."}]}]}],
        ["an empty reasoning item keeps the thought before it", {input: [{role: "user", content: "Hi"}, reasoning("Kept."), {type: "reasoning", summary: []}, {role: "assistant", content: "Hello!"}]},
            {messages: [user("Hi", "input[0]"), {role: "assistant", path: "input[3]", parts: [{type: "thought", text: "Kept."}, {type: "text", text: "Hello!"}]}]}],
        ["a hosted tool's call and output, and a compaction, are left out", {input: [
            {role: "user", content: "Search"}, {type: "web_search_call", id: "ws_1", status: "completed"},
            {type: "local_shell_call_output", id: "o1", output: "ok"}, {type: "compaction", encrypted_content: "x"}, {role: "assistant", content: "Found."}
        ]}, {messages: [user("Search", "input[0]"), {role: "assistant", parts: [{type: "text", text: "Found."}], path: "input[4]"}]}]
    ];

    it.each(cases)("%s", (_name, fields, expected) => expectFields(convert(fields).conversation, expected));

    it("names a stored response's call output by previous_response_id; this request's call joins the stored assistant message", () => {
        const {conversation} = convert({input: [fnCall("c2")]}, [{role: "user", content: "Go"}, fnCall("c1"), fnOutput("c1", [{type: "input_text", text: "ok"}]),
            {type: "message", role: "assistant", content: [{type: "output_text", text: ""}]}]);
        expect(conversation.messages).toEqual([
            user("Go", "previous_response_id"),
            {role: "assistant", parts: [{type: "toolCall", id: "c1", name: "read", arguments: "{}"}], path: "previous_response_id"},
            {role: "user", path: "previous_response_id", parts: [
                {type: "toolResult", callId: "c1", path: "previous_response_id", callIdPath: "previous_response_id", content: [{type: "text", text: "ok"}]}
            ]},
            {role: "assistant", parts: [{type: "toolCall", id: "c2", name: "read", arguments: "{}"}], path: "previous_response_id"}
        ]);
    });
});

describe("OpenAI Responses toConversation: tools, tool_choice and text.format", () => {
    const weather = {type: "function", name: "weather", description: "Today's weather", parameters: {type: "object", properties: {city: {type: "string"}}}, strict: true};
    const files = {type: "namespace", name: "mcp__files", description: "Files", tools: [
        {type: "function", name: "list", parameters: {type: "object"}}, {type: "custom", name: "grep"}, {type: "function", name: "_read"}
    ]};
    const cases: Array<[name: string, fields: Record<string, unknown>, expected: ExpectedFields, skipped?: string[]]> = [
        ["no tools", {}, {tools: [], toolChoice: undefined, parallelToolCalls: undefined}, []],
        ["function tools, each with its parameters' path", {tools: [weather, {type: "function", name: "now", strict: false}]}, {tools: [
            {name: "weather", description: "Today's weather", parameters: weather.parameters, strict: true, parametersPath: "tools[0].parameters"},
            {name: "now", parameters: undefined, strict: false, parametersPath: "tools[1].parameters"}
        ]}, []],
        ["a namespace's functions flattened to ns__name (underscores not doubled), its other tools skipped", {tools: [{type: "web_search"}, files]}, {tools: [
            {name: "mcp__files__list", parameters: {type: "object"}, strict: false, parametersPath: "tools[1].tools[0].parameters"},
            {name: "mcp__files__read", parameters: undefined, strict: false, parametersPath: "tools[1].tools[2].parameters"}
        ]}, ["web_search", "mcp__files.custom"]],
        ["hosted tools are left out; the functions keep their place's path", {tools: [{type: "file_search", vector_store_ids: []}, {type: "mcp", server_label: "x"}, weather]}, {tools: [
            {name: "weather", description: "Today's weather", parameters: weather.parameters, strict: true, parametersPath: "tools[2].parameters"}
        ]}, ["file_search", "mcp"]],
        ["tool_choice none", {tools: [weather], tool_choice: "none"}, {toolChoice: "none"}],
        ["tool_choice auto", {tools: [weather], tool_choice: "auto"}, {toolChoice: "auto"}],
        ["tool_choice required", {tools: [weather], tool_choice: "required"}, {toolChoice: "required"}],
        ["tool_choice naming a function", {tools: [weather], tool_choice: {type: "function", name: "weather"}}, {toolChoice: {name: "weather"}}],
        ["tool_choice naming a namespace's function", {tools: [files], tool_choice: {type: "function", name: "list", namespace: "mcp__files"}}, {toolChoice: {name: "mcp__files__list"}}],
        ["allowed_tools in required mode: all offered, a call required", {tools: [weather], tool_choice: {type: "allowed_tools", mode: "required", tools: [{type: "function", name: "weather"}]}},
            {toolChoice: "required"}],
        ["allowed_tools in auto mode", {tools: [weather], tool_choice: {type: "allowed_tools", mode: "auto", tools: []}}, {toolChoice: "auto"}],
        ["parallel_tool_calls false", {tools: [weather], parallel_tool_calls: false}, {parallelToolCalls: false}],
        ["no text.format is text", {text: {verbosity: "low"}}, {output: {type: "text"}}],
        ["text.format text", {text: {format: {type: "text"}}}, {output: {type: "text"}}],
        ["text.format json_object, named text.format", {text: {format: {type: "json_object"}}},
            {output: {type: "json", schema: null, strict: false, path: "text.format", schemaPath: "text.format"}}],
        ["text.format json_schema: its schema's path", {text: {format: {type: "json_schema", name: "answer", schema: {type: "object"}, strict: true}}},
            {output: {type: "json", schema: {type: "object"}, strict: true, path: "text.format", schemaPath: "text.format.schema"}}],
        ["text.format json_schema without strict", {text: {format: {type: "json_schema", name: "answer", schema: {type: "array"}}}},
            {output: {type: "json", schema: {type: "array"}, strict: false, path: "text.format", schemaPath: "text.format.schema"}}],
        ["llama-server's grammar, as its /v1/responses passes it through", {grammar: "root ::= \"a\""},
            {output: {type: "grammar", constraint: {kind: "gbnf", grammar: "root ::= \"a\""}, path: "grammar"}}],
        ["vLLM's structured_outputs.choice, beside text.format text", {structured_outputs: {choice: ["yes", "no"]}, text: {format: {type: "text"}}},
            {output: {type: "grammar", constraint: {kind: "choice", choices: ["yes", "no"]}, path: "structured_outputs.choice"}}],
        ["vLLM's guided_regex", {guided_regex: "\\d+"}, {output: {type: "grammar", constraint: {kind: "regex", pattern: "\\d+"}, path: "guided_regex"}}]
    ];

    it.each(cases)("%s", (_name, fields, expected, skipped) => {
        const {conversation, tools} = convert(fields);
        expectFields(conversation, expected);
        if (skipped != null)
            expect(tools.skipped).toEqual(skipped);
    });

    it("refuses a raw constraint beside text.format's JSON or beside tools, naming the constraint", () => {
        expect(thrownError(BadRequestError, () => convert({grammar: "root ::= \"a\"", text: {format: {type: "json_object"}}}))).toMatchObject({
            param: "grammar", message: expect.stringContaining("cannot be combined with 'text.format'")
        });
        expect(thrownError(BadRequestError, () => convert({guided_choice: ["a"], tools: [weather]}))).toMatchObject({param: "guided_choice", status: 400});
    });

    it("maps a namespace's flat name back to the client's name and namespace", () => {
        const {tools} = convert({tools: [weather, files]});
        expect(tools.clientName("mcp__files__list")).toEqual({name: "list", namespace: "mcp__files"});
        expect(tools.clientName("weather")).toEqual({name: "weather"});
    });
});

describe("OpenAI Responses toConversation: sampling, limits, thinking and the rest", () => {
    const cases: Case[] = [
        ["the model, one choice, no logprobs, no stop", {model: "gpt-oss"}, {model: "gpt-oss", choices: 1, logprobs: undefined, stop: []}],
        ["defaults: nothing sampled differently, no limit, thinking, no keep-alive", {}, {sampling: {}, maxTokens: undefined, thinking: true, keepAlive: undefined}],
        ["temperature, top_p and seed", {temperature: 0.5, top_p: 0.9, seed: 11}, {sampling: {temperature: 0.5, topP: 0.9, seed: 11}}],
        ["temperature 0 is set, nulls are not", {temperature: 0, top_p: null, seed: null}, {sampling: {temperature: 0}}],
        ["max_output_tokens", {max_output_tokens: 256}, {maxTokens: 256}],
        ["reasoning effort none: no thought", {reasoning: {effort: "none"}}, {thinking: false}],
        ["reasoning effort minimal: no thought", {reasoning: {effort: "minimal"}}, {thinking: false}],
        ["reasoning effort low thinks", {reasoning: {effort: "low"}}, {thinking: true}],
        ["reasoning effort high thinks", {reasoning: {effort: "high", summary: "auto"}}, {thinking: true}],
        ["keep_alive", {keep_alive: "30s"}, {keepAlive: {ms: 30_000}}],
        ["keep_alive 0", {keep_alive: 0}, {keepAlive: {ms: 0}}]
    ];

    it.each(cases)("%s", (_name, fields, expected) => expectFields(convert(fields).conversation, expected));
});

describe("OpenAI Responses toConversation: 400s", () => {
    const refusals: Array<[name: string, fields: Record<string, unknown>, expected: ExpectedRefusal, earlier?: unknown[]]> = [
        ["an input_image by file_id (no Files API)", {input: [{role: "user", content: [{type: "input_text", text: "a"}, {type: "input_image", file_id: "file-1"}]}]},
            {param: "input[0].content[1].file_id", code: "invalid_value", message: "no Files API"}],
        ["an input_image with neither image_url nor file_id", {input: [{role: "user", content: [{type: "input_image", detail: "auto"}]}]},
            {param: "input[0].content[0].image_url", code: "missing_required_parameter", message: "an input_image needs image_url"}],
        ["an input_image by file_id in a call's output", {input: [fnOutput("c1", [{type: "input_image", file_id: "file-1"}])]},
            {param: "input[0].output[0].file_id", code: "invalid_value", message: "no Files API"}],
        ["a stored response's input_image by file_id is named previous_response_id", {},
            {param: "previous_response_id", code: "invalid_value", message: "Invalid 'previous_response_id': images by file_id"},
            [{role: "user", content: [{type: "input_image", file_id: "file-1"}]}]],
        ["a part of a kind chatserve cannot read", {input: [{role: "user", content: "Hi"}, {role: "user", content: [{type: "input_text", text: "a"}, {type: "input_file", file_id: "f"}]}]},
            {param: "input[1].content[1]", code: "invalid_value", message: "content parts of type 'input_file' are not supported"}],
        ["a part of a kind chatserve cannot read in a call's output", {input: [fnOutput("c1", [{type: "input_audio", input_audio: {}}])]},
            {param: "input[0].output[0]", code: "invalid_value", message: "content parts of type 'input_audio' are not supported"}],
        ["an item of a kind chatserve cannot read", {input: [{role: "user", content: "Hi"}, {type: "item_reference", id: "msg_1"}]},
            {param: "input[1]", code: "invalid_value", message: "input items of type 'item_reference' are not supported"}],
        ["an unreadable item of a stored response is named previous_response_id", {},
            {param: "previous_response_id", code: "invalid_value", message: "input items of type 'item_reference'"}, [{type: "item_reference", id: "msg_1"}]],
        ["nothing to answer", {input: []}, {param: "input", code: "invalid_value", message: "there is nothing to answer"}],
        ["nothing but a hosted tool's call", {input: [{type: "web_search_call", id: "ws_1"}]}, {param: "input", code: "invalid_value", message: "there is nothing to answer"}],
        ["tool_choice naming a hosted tool", {tools: [{type: "web_search"}], tool_choice: {type: "web_search"}},
            {param: "tool_choice", code: "unsupported_tool", message: "'web_search' is a hosted tool"}]
    ];

    it.each(refusals)("%s", (_name, fields, {param, code, message}, earlier) => {
        expect(thrownError(BadRequestError, () => convert(fields, earlier))).toMatchObject({status: 400, param, code, message: expect.stringContaining(message)});
    });
});
