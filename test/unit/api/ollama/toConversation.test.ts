// The Ollama converter's table: messages, images, tool calls and results paired by id or name,
// format, think, options.
import {describe, expect, it} from "vitest";
import {chatToConversation, generateToConversation} from "../../../../src/api/ollama/toConversation.js";
import {chatRequestSchema, generateRequestSchema} from "../../../../src/api/ollama/ollamaRequest.js";

const chat = (body: Record<string, unknown>) => chatToConversation(chatRequestSchema.parse({model: "m", ...body}));

describe("Ollama chat → conversation", () => {
    it("roles, text, images as bare base64 with their wire paths, thinking as a thought", () => {
        const conversation = chat({messages: [
            {role: "system", content: "Be brief."},
            {role: "user", content: "What is this?", images: ["aGVsbG8="]},
            {role: "assistant", content: "A cat.", thinking: "Looks furry."}
        ]});
        expect(conversation.promptPath).toBe("messages");
        expect(conversation.messages).toEqual([
            {role: "system", parts: [{type: "text", text: "Be brief."}], path: "messages[0]"},
            {role: "user", parts: [{type: "text", text: "What is this?"}, {type: "image", url: "aGVsbG8=", path: "messages[1].images[0]", urlPath: "messages[1].images[0]"}], path: "messages[1]"},
            {role: "assistant", parts: [{type: "thought", text: "Looks furry."}, {type: "text", text: "A cat."}], path: "messages[2]"}
        ]);
    });

    it("calls without ids get one; results pair by tool_call_id, else by tool_name, else the first unanswered call", () => {
        const conversation = chat({messages: [
            {role: "user", content: "Go"},
            {role: "assistant", content: "", tool_calls: [
                {function: {name: "a", arguments: {x: 1}}},
                {id: "given", function: {name: "b", arguments: "{\"y\":2}"}},
                {function: {name: "c", arguments: {}}}
            ]},
            {role: "tool", tool_name: "b", content: "B"},
            {role: "tool", tool_call_id: "call_1_0", content: "A"},
            {role: "tool", content: "C"}
        ]});
        const assistant = conversation.messages[1]!;
        expect(assistant.parts).toEqual([
            {type: "toolCall", id: "call_1_0", name: "a", arguments: "{\"x\":1}"},
            {type: "toolCall", id: "given", name: "b", arguments: "{\"y\":2}"},
            {type: "toolCall", id: "call_1_2", name: "c", arguments: "{}"}
        ]);
        const callIds = conversation.messages.slice(2).map((message) => (message.parts[0] as {callId: string}).callId);
        expect(callIds).toEqual(["given", "call_1_0", "call_1_2"]);
    });

    it("a tool result with nothing left to answer is refused, naming the message", () => {
        expect(() => chat({messages: [{role: "user", content: "x"}, {role: "tool", content: "1"}]})).toThrow(/messages\[1\]/);
    });

    it("tools, format, think and options", () => {
        const conversation = chat({
            messages: [{role: "user", content: "x"}],
            tools: [{type: "function", function: {name: "f", parameters: {type: "object", properties: {}}}}],
            format: {type: "object"}, think: false, keep_alive: "5m",
            options: {temperature: 0.1, top_k: 5, num_predict: -1, stop: ["\n"], seed: 3}
        });
        expect(conversation.tools).toEqual([{name: "f", parameters: {type: "object", properties: {}}, strict: false, parametersPath: "tools[0].function.parameters"}]);
        expect(conversation.output).toEqual({type: "json", schema: {type: "object"}, strict: false, path: "format", schemaPath: "format"});
        expect(conversation.thinking).toBe(false);
        expect(conversation.keepAlive).toEqual({ms: 300_000});
        expect(conversation.sampling).toEqual({temperature: 0.1, topK: 5, seed: 3});
        expect(conversation.maxTokens).toBeUndefined();
        expect(conversation.stop).toEqual(["\n"]);
        expect(chat({messages: [], format: "json", think: "low"})).toMatchObject({output: {type: "json", schema: null}, thinking: true});
        expect(chat({messages: [], format: ""}).output).toEqual({type: "text"});
    });
});

describe("Ollama generate → conversation", () => {
    it("system, then the prompt and its images as one user turn", () => {
        const conversation = generateToConversation(generateRequestSchema.parse({model: "m", system: "S", prompt: "P", images: ["aGk="], options: {num_predict: 7}}));
        expect(conversation.promptPath).toBe("prompt");
        expect(conversation.maxTokens).toBe(7);
        expect(conversation.messages).toEqual([
            {role: "system", parts: [{type: "text", text: "S"}], path: "system"},
            {role: "user", parts: [{type: "text", text: "P"}, {type: "image", url: "aGk=", path: "images[0]", urlPath: "images[0]"}], path: "prompt"}
        ]);
    });
});
