import {describe, expect, it} from "vitest";
import {toChatHistory} from "../../../src/conversation/chatHistory.js";
import {BadRequestError} from "../../../src/errors.js";
import {chatCompletionRequestSchema} from "../../../src/api/openai-chat/chatCompletionRequest.js";
import {toConversation} from "../../../src/api/openai-chat/toConversation.js";
import type {Message} from "../../../src/conversation/conversation.js";
import {mediaMarkerFor} from "../../../src/engine/vision/mediaMarker.js";
import {thrownError} from "../support/thrownError.js";

/** OpenAI chat messages as the conversation core holds them (through the chat API's converter). */
const messages = (...raw: unknown[]): Message[] => toConversation(chatCompletionRequestSchema.parse({model: "m", messages: raw})).messages;

const rejection = (...raw: unknown[]) => thrownError(BadRequestError, () => toChatHistory(messages(...raw)));

describe("toChatHistory", () => {
    it("maps system, developer, user and assistant messages", () => {
        expect(toChatHistory(messages(
            {role: "system", content: "Be brief."},
            {role: "developer", content: "Be kind."},
            {role: "user", content: "Hi"},
            {role: "assistant", content: "Hello!"}
        ))).toEqual([
            {type: "system", text: "Be brief."},
            {type: "system", text: "Be kind."},
            {type: "user", text: "Hi"},
            {type: "model", response: ["Hello!"]}
        ]);
    });

    it("puts the media marker where a user's or a tool result's image is; without vision a tool's image reads [image]", () => {
        const picture = {type: "image_url", image_url: {url: "data:image/png;base64,AAAA"}};
        const raw = [
            {role: "user", content: [{type: "text", text: "Look"}, picture]},
            {role: "assistant", content: null, tool_calls: [{id: "c1", type: "function", function: {name: "read", arguments: "{}"}}]},
            {role: "tool", tool_call_id: "c1", content: [{type: "text", text: "shot.png:"}, picture]}
        ];
        const seen = toChatHistory(messages(...raw), {images: true});
        expect(seen[0]).toEqual({type: "user", text: `Look\n${mediaMarkerFor(0)}`});
        expect(seen[1]).toMatchObject({type: "model", response: [{type: "functionCall", result: `shot.png:\n${mediaMarkerFor(1)}`}]});
        const blind = toChatHistory(messages(raw[1], raw[2]), {images: false});
        expect(blind[0]).toMatchObject({type: "model", response: [{type: "functionCall", result: "shot.png:\n[image]"}]});
        expect(thrownError(BadRequestError, () => toChatHistory(messages(raw[0]), {images: false})).code).toBe("image_input_not_supported");
    });

    it("numbers images in message order, so results sent out of their calls' order keep their own image", () => {
        const picture = {type: "image_url", image_url: {url: "data:image/png;base64,AAAA"}};
        const history = toChatHistory(messages(
            {role: "user", content: "Both"},
            {role: "assistant", content: null, tool_calls: [
                {id: "a", type: "function", function: {name: "read", arguments: "{}"}},
                {id: "b", type: "function", function: {name: "read", arguments: "{}"}}
            ]},
            {role: "tool", tool_call_id: "b", content: [picture]},
            {role: "tool", tool_call_id: "a", content: [picture]}
        ), {images: true});
        // The template renders a's result first: it holds the second image sent (number 1).
        expect(history[1]).toMatchObject({type: "model", response: [
            {type: "functionCall", result: mediaMarkerFor(1)}, {type: "functionCall", result: mediaMarkerFor(0)}
        ]});
    });

    it("joins text parts with newlines", () => {
        const history = toChatHistory(messages({role: "user", content: [{type: "text", text: "one"}, {type: "text", text: "two"}]}));
        expect(history).toEqual([{type: "user", text: "one\ntwo"}]);
    });

    it("refuses an image part with image_input_not_supported, naming the part", () => {
        const error = rejection(
            {role: "user", content: "first"},
            {role: "user", content: [{type: "text", text: "look"}, {type: "image_url", image_url: {url: "https://x/y.png"}}]}
        );
        expect(error).toMatchObject({status: 400, param: "messages[1].content[1]", code: "image_input_not_supported"});
    });

    it("refuses other part kinds and text parts without text", () => {
        expect(rejection({role: "user", content: [{type: "input_audio", input_audio: {}}]}).param).toBe("messages[0].content[0]");
        expect(rejection({role: "user", content: [{type: "text"}]}).param).toBe("messages[0].content[0]");
    });

    it("turns assistant tool calls and their tool results into function-call items of that turn, which the next assistant message continues", () => {
        const history = toChatHistory(messages(
            {role: "user", content: "Weather in Paris and Rome?"},
            {role: "assistant", content: null, tool_calls: [
                {id: "call_1", type: "function", function: {name: "weather", arguments: "{\"city\":\"Paris\"}"}},
                {id: "call_2", type: "function", function: {name: "weather", arguments: "{\"city\":\"Rome\"}"}}
            ]},
            {role: "tool", tool_call_id: "call_2", content: "sunny"},
            {role: "tool", tool_call_id: "call_1", content: [{type: "text", text: "rainy"}]},
            {role: "assistant", content: "Paris: rainy, Rome: sunny."}
        ));
        expect(history).toEqual([
            {type: "user", text: "Weather in Paris and Rome?"},
            {type: "model", response: [
                {type: "functionCall", name: "weather", params: {city: "Paris"}, result: "rainy", startsNewChunk: true},
                {type: "functionCall", name: "weather", params: {city: "Rome"}, result: "sunny", startsNewChunk: false},
                "Paris: rainy, Rome: sunny."
            ]}
        ]);
    });

    it("answers calls that share an id in order, as histories from servers that number calls per reply have them", () => {
        const history = toChatHistory(messages(
            {role: "user", content: "Paris and Rome?"},
            {role: "assistant", content: null, tool_calls: [
                {id: "call_0", type: "function", function: {name: "weather", arguments: "{\"city\":\"Paris\"}"}},
                {id: "call_0", type: "function", function: {name: "weather", arguments: "{\"city\":\"Rome\"}"}}
            ]},
            {role: "tool", tool_call_id: "call_0", content: "rainy"},
            {role: "tool", tool_call_id: "call_0", content: "sunny"}
        ));
        expect(history[1]).toEqual({type: "model", response: [
            {type: "functionCall", name: "weather", params: {city: "Paris"}, result: "rainy", startsNewChunk: true},
            {type: "functionCall", name: "weather", params: {city: "Rome"}, result: "sunny", startsNewChunk: false}
        ]});
    });

    it("keeps 64-bit ids in call arguments and JSON tool results digit for digit", () => {
        const history = toChatHistory(messages(
            {role: "user", content: "Find my order."},
            {role: "assistant", content: null, tool_calls: [
                {id: "call_1", type: "function", function: {name: "get_order", arguments: "{\"order_id\": 1234567890123456789}"}}
            ]},
            {role: "tool", tool_call_id: "call_1", content: "{\"order_id\": 1234567890123456789, \"total\": 10.5}"}
        ));
        expect(history[1]).toEqual({type: "model", response: [{
            type: "functionCall", name: "get_order", params: {order_id: "1234567890123456789"},
            result: {order_id: "1234567890123456789", total: 10.5}, startsNewChunk: true
        }]});
    });

    it("passes a tool result or arguments nested deeper than the template can render as text", () => {
        const deep = "[".repeat(1000) + "]".repeat(1000);
        const call = {id: "call_1", type: "function" as const, function: {name: "f", arguments: "{}"}};
        const history = toChatHistory(messages({role: "user", content: "Go."}, {role: "assistant", content: null, tool_calls: [call]},
            {role: "tool", tool_call_id: "call_1", content: deep}));
        expect(history[1]).toMatchObject({response: [{result: deep}]});
        const deepCall = toChatHistory(messages({role: "user", content: "Go."},
            {role: "assistant", content: null, tool_calls: [{...call, function: {name: "f", arguments: deep}}]}));
        expect(deepCall[1]).toMatchObject({response: [{params: deep}]});
    });

    it("continues one model turn over several tool rounds, until a user message starts a new one", () => {
        const call = (id: string) => ({id, type: "function" as const, function: {name: "f", arguments: "{}"}});
        const history = toChatHistory(messages(
            {role: "user", content: "go"},
            {role: "assistant", content: null, tool_calls: [call("a")]},
            {role: "tool", tool_call_id: "a", content: "{\"n\": 1}"},
            {role: "assistant", content: null, tool_calls: [call("b")]},
            {role: "tool", tool_call_id: "b", content: "done"},
            {role: "assistant", content: "All done."},
            {role: "user", content: "thanks"},
            {role: "assistant", content: "You're welcome."}
        ));
        expect(history.map((item) => item.type)).toEqual(["user", "model", "user", "model"]);
        expect(history[1]).toEqual({type: "model", response: [
            {type: "functionCall", name: "f", params: {}, result: {n: 1}, startsNewChunk: true},
            {type: "functionCall", name: "f", params: {}, result: "done", startsNewChunk: true},
            "All done."
        ]});
    });

    it("keeps assistant text that precedes its tool calls", () => {
        const [turn] = toChatHistory(messages(
            {role: "assistant", content: "Let me check.", tool_calls: [{id: "c", type: "function", function: {name: "f", arguments: "{}"}}]}
        ));
        expect(turn).toMatchObject({type: "model", response: ["Let me check.", {type: "functionCall", name: "f", params: {}}]});
    });

    it("renders a reply of calls sent with content \"\" (Continue, opencode) as the same turn as one sent with null", () => {
        const call = {id: "c1", type: "function", function: {name: "f", arguments: "{}"}};
        const withEmpty = toChatHistory(messages({role: "user", content: "Hi"}, {role: "assistant", content: "", tool_calls: [call]}));
        const withNull = toChatHistory(messages({role: "user", content: "Hi"}, {role: "assistant", content: null, tool_calls: [call]}));
        expect(withEmpty).toEqual(withNull);
        // An empty reply without calls stays an empty reply.
        expect(toChatHistory(messages({role: "user", content: "Hi"}, {role: "assistant", content: ""}))[1]).toEqual({type: "model", response: [""]});
    });

    it("refuses a tool message that answers no earlier call", () => {
        const error = rejection(
            {role: "user", content: "hi"},
            {role: "tool", tool_call_id: "call_x", content: "42"}
        );
        expect(error).toMatchObject({status: 400, param: "messages[1].tool_call_id"});
        expect(error.message).toContain("call_x");
    });

    it("passes tool-call arguments that are not JSON, such as a call cut short by max_tokens, as text", () => {
        const [turn] = toChatHistory(messages(
            {role: "assistant", tool_calls: [{id: "c", type: "function", function: {name: "f", arguments: "{\"city\": \"Par"}}]},
            {role: "tool", tool_call_id: "c", content: "cut short"}
        ));
        expect(turn).toMatchObject({type: "model", response: [{type: "functionCall", name: "f", params: "{\"city\": \"Par", result: "cut short"}]});
        const [empty] = toChatHistory(messages({role: "assistant", tool_calls: [{id: "c", type: "function", function: {name: "f", arguments: ""}}]}));
        expect(empty).toMatchObject({response: [{params: ""}]});
    });

    it("answers the calls a system turn's tool results name, and keeps its text a system turn (Anthropic's system-role messages)", () => {
        const history = toChatHistory([
            {role: "assistant", path: "messages[0]", parts: [{type: "toolCall", id: "t1", name: "read", arguments: "{}"}]},
            {role: "system", path: "messages[1]", parts: [
                {type: "toolResult", callId: "t1", content: [{type: "text", text: "done"}], path: "messages[1].content[0]", callIdPath: "messages[1].content[0]"},
                {type: "text", text: "Be brief."}
            ]}
        ]);
        expect(history).toEqual([
            {type: "model", response: [{type: "functionCall", name: "read", params: {}, result: "done", startsNewChunk: true}]},
            {type: "system", text: "Be brief."}
        ]);
    });
});
