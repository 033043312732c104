import {describe, expect, it} from "vitest";
import {chatCompletionRequestSchema} from "../../../../src/api/openai-chat/chatCompletionRequest.js";
import {toConversation} from "../../../../src/api/openai-chat/toConversation.js";
import {BadRequestError} from "../../../../src/errors.js";
import {expectFields, type ExpectedFields, type ExpectedRefusal} from "../../support/conversationFields.js";
import {thrownError} from "../../support/thrownError.js";

/** A chat-completions body (a user's "Hi" unless the case sends messages) → the conversation. */
const convert = (fields: Record<string, unknown>) =>
    toConversation(chatCompletionRequestSchema.parse({model: "m", messages: [{role: "user", content: "Hi"}], ...fields}));

const image = (url: unknown) => ({type: "image_url", image_url: {url}});
const call = (id: string, name = "read", args = "{}") => ({id, type: "function", function: {name, arguments: args}});

type Case = [name: string, fields: Record<string, unknown>, expected: ExpectedFields];

describe("OpenAI chat toConversation: messages", () => {
    const cases: Case[] = [
        ["a system message", {messages: [{role: "system", content: "Be brief."}]},
            {messages: [{role: "system", parts: [{type: "text", text: "Be brief."}], path: "messages[0]"}]}],
        ["a developer message is a system message", {messages: [{role: "user", content: "Hi"}, {role: "developer", content: [{type: "text", text: "Be kind."}]}]},
            {messages: [
                {role: "user", parts: [{type: "text", text: "Hi"}], path: "messages[0]"},
                {role: "system", parts: [{type: "text", text: "Be kind."}], path: "messages[1]", wireRole: "developer"}
            ]}],
        ["a user's text parts, each a part", {messages: [{role: "user", content: [{type: "text", text: "one"}, {type: "text", text: "two"}]}]},
            {messages: [{role: "user", parts: [{type: "text", text: "one"}, {type: "text", text: "two"}], path: "messages[0]"}]}],
        ["a user's image_url part, named by the part and by its url field", {messages: [{role: "user", content: [{type: "text", text: "Look"}, image("https://x/y.png")]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "text", text: "Look"},
                {type: "image", url: "https://x/y.png", path: "messages[0].content[1]", urlPath: "messages[0].content[1].image_url.url"}
            ]}]}],
        ["an image_url given as a bare string, as some clients send it", {messages: [{role: "user", content: [{type: "image_url", image_url: "data:image/png;base64,AAAA"}]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "image", url: "data:image/png;base64,AAAA", path: "messages[0].content[0]", urlPath: "messages[0].content[0].image_url.url"}
            ]}]}],
        ["an input_image part (the Responses spelling) with image_url", {messages: [{role: "user", content: [{type: "input_image", image_url: {url: "https://x/z.png"}}]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [
                {type: "image", url: "https://x/z.png", path: "messages[0].content[0]", urlPath: "messages[0].content[0].image_url.url"}
            ]}]}],
        ["an assistant's thought, text and calls, in that order", {messages: [
            {role: "user", content: "Weather?"},
            {role: "assistant", reasoning_content: "Look it up.", content: "Checking.", tool_calls: [call("c1", "weather", "{\"city\":\"Paris\"}"), call("c2")]}
        ]}, {messages: [
            {role: "user", parts: [{type: "text", text: "Weather?"}], path: "messages[0]"},
            {role: "assistant", path: "messages[1]", parts: [
                {type: "thought", text: "Look it up."},
                {type: "text", text: "Checking."},
                {type: "toolCall", id: "c1", name: "weather", arguments: "{\"city\":\"Paris\"}"},
                {type: "toolCall", id: "c2", name: "read", arguments: "{}"}
            ]}
        ]}],
        ["an empty reasoning_content is no thought", {messages: [{role: "assistant", reasoning_content: "", content: "Hi"}]},
            {messages: [{role: "assistant", parts: [{type: "text", text: "Hi"}], path: "messages[0]"}]}],
        ["a reply of calls sent with content \"\" has no text part (Continue, opencode)", {messages: [{role: "assistant", content: "", tool_calls: [call("c1")]}]},
            {messages: [{role: "assistant", parts: [{type: "toolCall", id: "c1", name: "read", arguments: "{}"}], path: "messages[0]"}]}],
        ["a reply of calls with one empty text part has no text part", {messages: [{role: "assistant", content: [{type: "text", text: ""}], tool_calls: [call("c1")]}]},
            {messages: [{role: "assistant", parts: [{type: "toolCall", id: "c1", name: "read", arguments: "{}"}], path: "messages[0]"}]}],
        ["an empty reply without calls keeps its empty text", {messages: [{role: "assistant", content: ""}]},
            {messages: [{role: "assistant", parts: [{type: "text", text: ""}], path: "messages[0]"}]}],
        ["an assistant message with content null and no calls has no parts", {messages: [{role: "assistant", content: null}]},
            {messages: [{role: "assistant", parts: [], path: "messages[0]"}]}],
        ["a tool message is a user-side tool result naming its tool_call_id", {messages: [
            {role: "user", content: "Go"}, {role: "assistant", content: null, tool_calls: [call("c1")]}, {role: "tool", tool_call_id: "c1", content: "42"}
        ]}, {messages: [
            {role: "user", parts: [{type: "text", text: "Go"}], path: "messages[0]"},
            {role: "assistant", parts: [{type: "toolCall", id: "c1", name: "read", arguments: "{}"}], path: "messages[1]"},
            {role: "user", path: "messages[2]", parts: [
                {type: "toolResult", callId: "c1", path: "messages[2]", callIdPath: "messages[2].tool_call_id", content: [{type: "text", text: "42"}]}
            ]}
        ]}],
        ["a tool result's text and image parts", {messages: [{role: "tool", tool_call_id: "c1", content: [{type: "text", text: "shot:"}, image("data:image/png;base64,AAAA")]}]},
            {messages: [{role: "user", path: "messages[0]", parts: [{type: "toolResult", callId: "c1", path: "messages[0]", callIdPath: "messages[0].tool_call_id", content: [
                {type: "text", text: "shot:"},
                {type: "image", url: "data:image/png;base64,AAAA", path: "messages[0].content[1]", urlPath: "messages[0].content[1].image_url.url"}
            ]}]}]}]
    ];

    it.each(cases)("%s", (_name, fields, expected) => expectFields(convert(fields), expected));
});

describe("OpenAI chat toConversation: tools, tool choice and output format", () => {
    const weather = {type: "function", function: {name: "weather", description: "Today's weather", parameters: {type: "object", properties: {city: {type: "string"}}}, strict: true}};
    const bare = {type: "function", function: {name: "now"}};
    const cases: Case[] = [
        ["no tools", {}, {tools: [], toolChoice: undefined, parallelToolCalls: undefined}],
        ["tools, each with its parameters' path; strict only when true; no description when none", {tools: [weather, bare]}, {tools: [
            {name: "weather", description: "Today's weather", parameters: {type: "object", properties: {city: {type: "string"}}}, strict: true, parametersPath: "tools[0].function.parameters"},
            {name: "now", parameters: undefined, strict: false, parametersPath: "tools[1].function.parameters"}
        ]}],
        ["a null description and strict are not set", {tools: [{type: "function", function: {name: "now", description: null, parameters: null, strict: null}}]},
            {tools: [{name: "now", parameters: null, strict: false, parametersPath: "tools[0].function.parameters"}]}],
        ["tool_choice none", {tools: [weather], tool_choice: "none"}, {toolChoice: "none"}],
        ["tool_choice auto", {tools: [weather], tool_choice: "auto"}, {toolChoice: "auto"}],
        ["tool_choice required", {tools: [weather], tool_choice: "required"}, {toolChoice: "required"}],
        ["tool_choice naming a function", {tools: [weather], tool_choice: {type: "function", function: {name: "weather"}}}, {toolChoice: {name: "weather"}}],
        ["tool_choice null is not set", {tools: [weather], tool_choice: null}, {toolChoice: undefined}],
        ["parallel_tool_calls false", {tools: [weather], parallel_tool_calls: false}, {parallelToolCalls: false}],
        ["parallel_tool_calls true", {tools: [weather], parallel_tool_calls: true}, {parallelToolCalls: true}],
        ["no response_format is text", {}, {output: {type: "text"}}],
        ["response_format text", {response_format: {type: "text"}}, {output: {type: "text"}}],
        ["response_format json_object: any JSON object, named by response_format", {response_format: {type: "json_object"}},
            {output: {type: "json", schema: null, strict: false, path: "response_format", schemaPath: "response_format"}}],
        ["response_format json_schema: its schema's path", {response_format: {type: "json_schema", json_schema: {name: "answer", schema: {type: "object"}, strict: true}}},
            {output: {type: "json", schema: {type: "object"}, strict: true, path: "response_format", schemaPath: "response_format.json_schema.schema"}}],
        ["response_format json_schema without a schema or strict", {response_format: {type: "json_schema", json_schema: {name: "answer"}}},
            {output: {type: "json", schema: null, strict: false, path: "response_format", schemaPath: "response_format.json_schema.schema"}}]
    ];

    it.each(cases)("%s", (_name, fields, expected) => expectFields(convert(fields), expected));
});

describe("OpenAI chat toConversation: sampling, limits, thinking and the rest", () => {
    const cases: Case[] = [
        ["the model, and the prompt named messages", {model: "qwen"}, {model: "qwen", promptPath: "messages"}],
        ["defaults: nothing sampled differently, no limit, no stop, thinking, one choice, no logprobs, no keep-alive", {},
            {sampling: {}, maxTokens: undefined, stop: [], thinking: true, choices: 1, logprobs: undefined, keepAlive: undefined}],
        ["sampling fields", {temperature: 0.2, top_p: 0.9, seed: 7, presence_penalty: 0.5, frequency_penalty: -0.5, logit_bias: {"42": -100}},
            {sampling: {temperature: 0.2, topP: 0.9, seed: 7, presencePenalty: 0.5, frequencyPenalty: -0.5, logitBias: {"42": -100}}}],
        ["temperature 0 is set, nulls are not", {temperature: 0, top_p: null, seed: null}, {sampling: {temperature: 0}}],
        ["max_tokens", {max_tokens: 100}, {maxTokens: 100}],
        ["max_completion_tokens", {max_completion_tokens: 50}, {maxTokens: 50}],
        ["max_completion_tokens over max_tokens, its successor", {max_tokens: 100, max_completion_tokens: 50}, {maxTokens: 50}],
        ["max_completion_tokens null falls back to max_tokens", {max_tokens: 100, max_completion_tokens: null}, {maxTokens: 100}],
        ["stop as a string", {stop: "END"}, {stop: ["END"]}],
        ["stop as an array", {stop: ["a", "b"]}, {stop: ["a", "b"]}],
        ["stop null", {stop: null}, {stop: []}],
        ["chat_template_kwargs enable_thinking false", {chat_template_kwargs: {enable_thinking: false}}, {thinking: false}],
        ["chat_template_kwargs thinking false (DeepSeek V3.1's)", {chat_template_kwargs: {thinking: false}}, {thinking: false}],
        ["enable_thinking before thinking", {chat_template_kwargs: {enable_thinking: true, thinking: false}}, {thinking: true}],
        ["enable_thinking null falls back to thinking", {chat_template_kwargs: {enable_thinking: null, thinking: false}}, {thinking: false}],
        ["every chat_template_kwargs variable goes to the template", {chat_template_kwargs: {tools_in_user_message: true, thinking: true}},
            {thinking: true, templateVariables: {tools_in_user_message: true, thinking: true}}],
        ["reasoning_effort goes to the template (GPT-OSS's variable)", {reasoning_effort: "high"}, {thinking: true, templateVariables: {reasoning_effort: "high"}}],
        ["reasoning_effort minimal means no thinking", {reasoning_effort: "minimal"}, {thinking: false}],
        ["keep_alive as a duration", {keep_alive: "5m"}, {keepAlive: {ms: 300_000}}],
        ["keep_alive -1 is for ever", {keep_alive: -1}, {keepAlive: "forever"}],
        ["keep_alive 0", {keep_alive: 0}, {keepAlive: {ms: 0}}],
        ["n → choices", {n: 3}, {choices: 3}],
        ["n 128, the most", {n: 128}, {choices: 128}],
        ["logprobs true: no alternatives", {logprobs: true}, {logprobs: {top: 0}}],
        ["logprobs true with top_logprobs", {logprobs: true, top_logprobs: 5}, {logprobs: {top: 5}}],
        ["logprobs false", {logprobs: false, top_logprobs: 0}, {logprobs: undefined}],
        ["lora (llama-server's per-request adapter scales), as sent", {lora: [{id: 1, scale: 0.5}, {id: 0, scale: 0}]}, {lora: [{id: 1, scale: 0.5}, {id: 0, scale: 0}]}],
        ["lora absent or null: the model's own scales", {lora: null}, {lora: undefined}]
    ];

    it.each(cases)("%s", (_name, fields, expected) => expectFields(convert(fields), expected));
});

describe("OpenAI chat toConversation: 400s", () => {
    const refusals: Array<[name: string, fields: Record<string, unknown>, expected: ExpectedRefusal]> = [
        ["a text part without text", {messages: [{role: "user", content: [{type: "text"}]}]},
            {param: "messages[0].content[0]", code: "invalid_value", message: "a text part needs a string 'text'"}],
        ["a part of a kind chatserve cannot read", {messages: [{role: "user", content: "Hi"}, {role: "user", content: [{type: "text", text: "a"}, {type: "input_audio", input_audio: {}}]}]},
            {param: "messages[1].content[1]", code: "invalid_value", message: "content parts of type 'input_audio' are not supported"}],
        ["a file part in a tool result", {messages: [{role: "tool", tool_call_id: "c1", content: [{type: "file", file: {}}]}]},
            {param: "messages[0].content[0]", code: "invalid_value", message: "'file' are not supported"}],
        ["an image_url part without a url", {messages: [{role: "user", content: [{type: "image_url", image_url: {}}]}]},
            {param: "messages[0].content[0].image_url", code: "invalid_value", message: "needs 'image_url.url'"}],
        ["an image_url part with an empty url", {messages: [{role: "user", content: [image("")]}]},
            {param: "messages[0].content[0].image_url", code: "invalid_value", message: "needs 'image_url.url'"}],
        ["an image_url part with no image_url at all", {messages: [{role: "user", content: [{type: "image_url"}]}]},
            {param: "messages[0].content[0].image_url", code: "invalid_value", message: "needs 'image_url.url'"}],
        ["top_logprobs without logprobs", {top_logprobs: 3}, {param: "top_logprobs", code: "invalid_value", message: "top_logprobs needs logprobs set to true"}],
        ["the deprecated functions", {functions: [{name: "f"}]}, {param: "functions", code: "unsupported_parameter", message: "send 'tools' instead"}],
        ["the deprecated function_call naming a function", {function_call: {name: "f"}}, {param: "function_call", code: "unsupported_parameter", message: "send 'tool_choice' instead"}],
        ["audio output", {modalities: ["text", "audio"]}, {param: "modalities", code: "unsupported_parameter", message: "audio output"}],
        ["stream_options without a stream", {stream_options: {include_usage: true}}, {param: "stream_options", code: "invalid_value", message: "only allowed when stream is true"}],
        ["n over 128", {n: 129}, {param: "n", code: "invalid_value", message: "Too many choices: n = 129"}]
    ];

    it.each(refusals)("%s", (_name, fields, {param, code, message}) => {
        expect(thrownError(BadRequestError, () => convert(fields))).toMatchObject({status: 400, param, code, message: expect.stringContaining(message)});
    });
});
