import {describe, expect, it} from "vitest";
import {messagesRequestSchema} from "../../../../src/api/anthropic-messages/messagesRequest.js";
import {toConversation} from "../../../../src/api/anthropic-messages/toConversation.js";
import type {Message} from "../../../../src/conversation/conversation.js";
import {BadRequestError} from "../../../../src/errors.js";
import {expectFields, type ExpectedFields, type ExpectedRefusal} from "../../support/conversationFields.js";
import {thrownError} from "../../support/thrownError.js";

/** A Messages body (a user's "Hi" unless the case sends messages) → the conversation and the server tools left out. */
const convert = (fields: Record<string, unknown>) =>
    toConversation(messagesRequestSchema.parse({model: "m", max_tokens: 64, messages: [{role: "user", content: "Hi"}], ...fields}));

const hi: Message = {role: "user", parts: [{type: "text", text: "Hi"}], path: "messages[0]"};
const png = {type: "base64", media_type: "image/png", data: "AAAA"};
const useBlock = (id: string, name = "read", input: unknown = {}) => ({type: "tool_use", id, name, input});

type Case = [name: string, fields: Record<string, unknown>, expected: ExpectedFields];

describe("Anthropic Messages toConversation: system and messages", () => {
    const cases: Case[] = [
        ["a system string is a system message named system", {system: "Be brief."},
            {messages: [{role: "system", parts: [{type: "text", text: "Be brief."}], path: "system"}, hi]}],
        ["system text blocks, joined by lines", {system: [{type: "text", text: "One."}, {type: "text", text: "Two.", cache_control: {type: "ephemeral"}}]},
            {messages: [{role: "system", parts: [{type: "text", text: "One.\nTwo."}], path: "system"}, hi]}],
        ["Claude Code's x-anthropic-billing-header line is dropped", {system: [{type: "text", text: "x-anthropic-billing-header: cc_version=1.0; cch=abc;"}, {type: "text", text: "You are Claude Code."}]},
            {messages: [{role: "system", parts: [{type: "text", text: "You are Claude Code."}], path: "system"}, hi]}],
        ["a system of the billing line alone is no system message", {system: [{type: "text", text: "x-anthropic-billing-header: cc_version=1.0"}]}, {messages: [hi]}],
        ["an empty system is no system message", {system: ""}, {messages: [hi]}],
        ["a system message inside messages (Claude Code sends them)", {messages: [{role: "system", content: [{type: "text", text: "Mind the tests."}]}, {role: "user", content: "Hi"}]},
            {messages: [
                {role: "system", parts: [{type: "text", text: "Mind the tests."}], path: "messages[0]"},
                {role: "user", parts: [{type: "text", text: "Hi"}], path: "messages[1]"}
            ]}],
        ["a system message inside messages as a string", {messages: [{role: "system", content: "Mind the tests."}, {role: "user", content: "Hi"}]},
            {messages: [
                {role: "system", parts: [{type: "text", text: "Mind the tests."}], path: "messages[0]"},
                {role: "user", parts: [{type: "text", text: "Hi"}], path: "messages[1]"}
            ]}],
        ["user and assistant strings", {messages: [{role: "user", content: "Hi"}, {role: "assistant", content: "Hello!"}]},
            {messages: [hi, {role: "assistant", parts: [{type: "text", text: "Hello!"}], path: "messages[1]"}]}],
        ["a user's text blocks, each a part", {messages: [{role: "user", content: [{type: "text", text: "one"}, {type: "text", text: "two"}]}]},
            {messages: [{role: "user", parts: [{type: "text", text: "one"}, {type: "text", text: "two"}], path: "messages[0]"}]}],
        ["a user turn of thinking blocks alone is left out", {messages: [{role: "user", content: "Hi"}, {role: "user", content: [{type: "thinking", thinking: "hm", signature: "s"}, {type: "redacted_thinking", data: "x"}]}]},
            {messages: [hi]}],
        ["a user turn with no blocks stays, empty", {messages: [{role: "user", content: []}]}, {messages: [{role: "user", parts: [], path: "messages[0]"}]}],
        ["an assistant's thinking, text and tool_use blocks: thought, text, calls", {messages: [
            {role: "user", content: "Weather?"},
            {role: "assistant", content: [
                {type: "thinking", thinking: "Look ", signature: "sig"},
                {type: "redacted_thinking", data: "opaque"},
                {type: "thinking", thinking: "it up."},
                {type: "text", text: "Check"}, {type: "text", text: "ing."},
                useBlock("t1", "weather", {city: "Paris"}), useBlock("t2", "now", null)
            ]}
        ]}, {messages: [
            {role: "user", parts: [{type: "text", text: "Weather?"}], path: "messages[0]"},
            {role: "assistant", path: "messages[1]", parts: [
                {type: "thought", text: "Look it up."},
                {type: "text", text: "Checking."},
                {type: "toolCall", id: "t1", name: "weather", arguments: "{\"city\":\"Paris\"}"},
                {type: "toolCall", id: "t2", name: "now", arguments: "{}"}
            ]}
        ]}],
        ["a reply of calls alone has no text part", {messages: [{role: "assistant", content: [useBlock("t1")]}]},
            {messages: [{role: "assistant", parts: [{type: "toolCall", id: "t1", name: "read", arguments: "{}"}], path: "messages[0]"}]}],
        ["a reply with neither text nor calls has an empty text", {messages: [{role: "assistant", content: [{type: "thinking", thinking: ""}]}]},
            {messages: [{role: "assistant", parts: [{type: "text", text: ""}], path: "messages[0]"}]}],
        ["a server tool's use and result in an assistant turn are left out", {messages: [{role: "assistant", content: [
            {type: "server_tool_use", id: "srv1", name: "web_search", input: {query: "x"}},
            {type: "web_search_tool_result", tool_use_id: "srv1", content: []},
            {type: "text", text: "Found it."}
        ]}]}, {messages: [{role: "assistant", parts: [{type: "text", text: "Found it."}], path: "messages[0]"}]}]
    ];

    it.each(cases)("%s", (_name, fields, expected) => expectFields(convert(fields).conversation, expected));
});

describe("Anthropic Messages toConversation: images and tool results", () => {
    const cases: Case[] = [
        ["a base64 image becomes a data: URI, named by its block and its source's data", {messages: [{role: "user", content: [{type: "text", text: "Look"}, {type: "image", source: png}]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "text", text: "Look"},
                {type: "image", url: "data:image/png;base64,AAAA", path: "messages[0].content[1]", urlPath: "messages[0].content[1].source.data"}
            ]}]}],
        ["a url image, named by its source's url", {messages: [{role: "user", content: [{type: "image", source: {type: "url", url: "https://x/y.jpg"}}]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "image", url: "https://x/y.jpg", path: "messages[0].content[0]", urlPath: "messages[0].content[0].source.url"}
            ]}]}],
        ["a media type is any image type; the bytes decide", {messages: [{role: "user", content: [{type: "image", source: {...png, media_type: "image/svg+xml"}}]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "image", url: "data:image/svg+xml;base64,AAAA", path: "messages[0].content[0]", urlPath: "messages[0].content[0].source.data"}
            ]}]}],
        ["a tool_result's string content, the block naming its call id", {messages: [{role: "user", content: [{type: "tool_result", tool_use_id: "t1", content: "42"}]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "toolResult", callId: "t1", path: "messages[0].content[0]", callIdPath: "messages[0].content[0]", content: [{type: "text", text: "42"}]}
            ]}]}],
        ["a tool_result without content is empty text", {messages: [{role: "user", content: [{type: "tool_result", tool_use_id: "t1"}]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "toolResult", callId: "t1", path: "messages[0].content[0]", callIdPath: "messages[0].content[0]", content: [{type: "text", text: ""}]}
            ]}]}],
        ["is_error: the result says Error, as Anthropic tells Claude", {messages: [{role: "user", content: [{type: "tool_result", tool_use_id: "t1", content: "no such file", is_error: true}]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "toolResult", callId: "t1", path: "messages[0].content[0]", callIdPath: "messages[0].content[0]", content: [{type: "text", text: "Error: no such file"}]}
            ]}]}],
        ["a tool_result's text blocks joined by lines, other blocks as [type]", {messages: [{role: "user", content: [{type: "tool_result", tool_use_id: "t1", content: [
            {type: "text", text: "a"}, {type: "search_result", source: "s", title: "t", content: []}, {type: "text", text: "b"}
        ]}]}]}, {messages: [{role: "user", path: "messages[0]", parts: [
            {type: "toolResult", callId: "t1", path: "messages[0].content[0]", callIdPath: "messages[0].content[0]", content: [{type: "text", text: "a\n[search_result]\nb"}]}
        ]}]}],
        ["a tool_result's images, named inside the result (Claude Code's screenshot)", {messages: [{role: "user", content: [{type: "tool_result", tool_use_id: "t1", content: [
            {type: "text", text: "shot.png:"}, {type: "image", source: png}
        ]}]}]}, {messages: [{role: "user", path: "messages[0]", parts: [
            {type: "toolResult", callId: "t1", path: "messages[0].content[0]", callIdPath: "messages[0].content[0]", content: [
                {type: "text", text: "shot.png:"},
                {type: "image", url: "data:image/png;base64,AAAA", path: "messages[0].content[0].content[1]", urlPath: "messages[0].content[0].content[1].source.data"}
            ]}
        ]}]}],
        ["an erroneous tool_result with an image: Error first", {messages: [{role: "user", content: [{type: "tool_result", tool_use_id: "t1", is_error: true, content: [
            {type: "image", source: {type: "url", url: "https://x/e.png"}}
        ]}]}]}, {messages: [{role: "user", path: "messages[0]", parts: [
            {type: "toolResult", callId: "t1", path: "messages[0].content[0]", callIdPath: "messages[0].content[0]", content: [
                {type: "text", text: "Error: "},
                {type: "image", url: "https://x/e.png", path: "messages[0].content[0].content[0]", urlPath: "messages[0].content[0].content[0].source.url"}
            ]}
        ]}]}],
        ["tool results and the user's words in one turn stay one message, in block order", {messages: [{role: "user", content: [
            {type: "tool_result", tool_use_id: "t1", content: "done"}, {type: "text", text: "Next?"}
        ]}]}, {messages: [{role: "user", path: "messages[0]", parts: [
            {type: "toolResult", callId: "t1", path: "messages[0].content[0]", callIdPath: "messages[0].content[0]", content: [{type: "text", text: "done"}]},
            {type: "text", text: "Next?"}
        ]}]}]
    ];

    it.each(cases)("%s", (_name, fields, expected) => expectFields(convert(fields).conversation, expected));
});

describe("Anthropic Messages toConversation: tools and tool_choice", () => {
    const weather = {name: "weather", description: "Today's weather", input_schema: {type: "object", properties: {city: {type: "string"}}}};
    const webSearch = {type: "web_search_20250305", name: "web_search", max_uses: 3};
    const cases: Array<[name: string, fields: Record<string, unknown>, expected: ExpectedFields, skipped: string[]]> = [
        ["no tools", {}, {tools: [], toolChoice: undefined, parallelToolCalls: undefined}, []],
        ["custom tools, each with its input_schema's path", {tools: [weather, {type: "custom", name: "now", input_schema: {type: "object"}, strict: true}]}, {tools: [
            {name: "weather", description: "Today's weather", parameters: weather.input_schema, strict: false, parametersPath: "tools[0].input_schema"},
            {name: "now", parameters: {type: "object"}, strict: true, parametersPath: "tools[1].input_schema"}
        ]}, []],
        ["server tools are left out, and the others keep their place's path", {tools: [webSearch, {type: "bash_20250124", name: "bash"}, weather]}, {tools: [
            {name: "weather", description: "Today's weather", parameters: weather.input_schema, strict: false, parametersPath: "tools[2].input_schema"}
        ]}, ["web_search_20250305", "bash_20250124"]],
        ["tool_choice auto", {tools: [weather], tool_choice: {type: "auto"}}, {toolChoice: "auto", parallelToolCalls: undefined}, []],
        ["tool_choice any is required", {tools: [weather], tool_choice: {type: "any"}}, {toolChoice: "required"}, []],
        ["tool_choice tool names it", {tools: [weather], tool_choice: {type: "tool", name: "weather"}}, {toolChoice: {name: "weather"}}, []],
        ["tool_choice none", {tools: [weather], tool_choice: {type: "none"}}, {toolChoice: "none"}, []],
        ["disable_parallel_tool_use true: one call per reply", {tools: [weather], tool_choice: {type: "auto", disable_parallel_tool_use: true}},
            {toolChoice: "auto", parallelToolCalls: false}, []],
        ["disable_parallel_tool_use with any", {tools: [weather], tool_choice: {type: "any", disable_parallel_tool_use: true}},
            {toolChoice: "required", parallelToolCalls: false}, []],
        ["disable_parallel_tool_use false says nothing", {tools: [weather], tool_choice: {type: "tool", name: "weather", disable_parallel_tool_use: false}},
            {toolChoice: {name: "weather"}, parallelToolCalls: undefined}, []],
        ["a tool_choice naming no tool at all is left to the reply plan", {tools: [weather], tool_choice: {type: "tool", name: "nothing"}}, {toolChoice: {name: "nothing"}}, []]
    ];

    it.each(cases)("%s", (_name, fields, expected, skipped) => {
        const {conversation, skippedTools} = convert(fields);
        expectFields(conversation, expected);
        expect(skippedTools).toEqual(skipped);
    });
});

describe("Anthropic Messages toConversation: sampling, limits, thinking and the rest", () => {
    const cases: Case[] = [
        ["the model, the prompt named messages, text out, one choice, no logprobs", {model: "claude-sonnet-4"},
            {model: "claude-sonnet-4", promptPath: "messages", output: {type: "text"}, choices: 1, logprobs: undefined}],
        ["max_tokens is the reply's limit", {max_tokens: 1000}, {maxTokens: 1000}],
        ["defaults: nothing sampled differently, no stop, thinking, no keep-alive", {}, {sampling: {}, stop: [], thinking: true, keepAlive: undefined}],
        ["temperature and top_p; top_k is not sampled on", {temperature: 0.3, top_p: 0.8, top_k: 40}, {sampling: {temperature: 0.3, topP: 0.8}}],
        ["temperature 0 is set", {temperature: 0}, {sampling: {temperature: 0}}],
        ["stop_sequences", {stop_sequences: ["\n\nHuman:", "END"]}, {stop: ["\n\nHuman:", "END"]}],
        ["thinking disabled: no thought", {thinking: {type: "disabled"}}, {thinking: false}],
        ["thinking enabled with a budget", {thinking: {type: "enabled", budget_tokens: 1024}}, {thinking: true}],
        ["thinking adaptive", {thinking: {type: "adaptive"}}, {thinking: true}],
        ["keep_alive", {keep_alive: "10m"}, {keepAlive: {ms: 600_000}}],
        ["keep_alive for ever", {keep_alive: "-1"}, {keepAlive: "forever"}]
    ];

    it.each(cases)("%s", (_name, fields, expected) => expectFields(convert(fields).conversation, expected));
});

describe("Anthropic Messages toConversation: 400s", () => {
    const refusals: Array<[name: string, fields: Record<string, unknown>, expected: ExpectedRefusal]> = [
        ["an image whose media_type is no image type", {messages: [{role: "user", content: [{type: "image", source: {...png, media_type: "application/pdf"}}]}]},
            {param: "messages[0].content[0].source.media_type", code: "invalid_value", message: "'application/pdf' is not an image type"}],
        ["an image source by file id (no Files API)", {messages: [{role: "user", content: [{type: "text", text: "a"}, {type: "image", source: {type: "file", file_id: "file_1"}}]}]},
            {param: "messages[0].content[1].source.type", code: "invalid_value", message: "image sources of type 'file' are not supported"}],
        ["an image in a tool_result with a bad media_type, named inside the result", {messages: [{role: "user", content: [{type: "tool_result", tool_use_id: "t1", content: [
            {type: "text", text: "x"}, {type: "image", source: {...png, media_type: "text/plain"}}
        ]}]}]}, {param: "messages[0].content[0].content[1].source.media_type", code: "invalid_value", message: "'text/plain' is not an image type"}],
        ["a document block", {messages: [{role: "user", content: "Hi"}, {role: "assistant", content: "Yes?"}, {role: "user", content: [{type: "document", source: {type: "text", data: "x"}}]}]},
            {param: "messages[2].content[0]", code: "invalid_value", message: "document blocks (PDF and text files) are not supported"}],
        ["a user block of a kind chatserve cannot read", {messages: [{role: "user", content: [{type: "text", text: "a"}, {type: "search_result", source: "s", title: "t", content: []}]}]},
            {param: "messages[0].content[1]", code: "invalid_value", message: "content blocks of type 'search_result' are not supported here"}],
        ["a tool_use block in a user turn", {messages: [{role: "user", content: [useBlock("t1")]}]},
            {param: "messages[0].content[0]", code: "invalid_value", message: "content blocks of type 'tool_use' are not supported here"}],
        ["an image block in an assistant turn", {messages: [{role: "user", content: "Hi"}, {role: "assistant", content: [{type: "text", text: "a"}, {type: "image", source: png}]}]},
            {param: "messages[1].content[1]", code: "invalid_value", message: "content blocks of type 'image' are not supported here"}],
        ["tool_choice naming a server tool", {tools: [{type: "web_search_20250305", name: "web_search"}], tool_choice: {type: "tool", name: "web_search"}},
            {param: "tool_choice", code: "unsupported_tool", message: "'web_search' is a server tool (web_search_20250305)"}]
    ];

    it.each(refusals)("%s", (_name, fields, {param, code, message}) => {
        expect(thrownError(BadRequestError, () => convert(fields))).toMatchObject({status: 400, param, code, message: expect.stringContaining(message)});
    });
});
