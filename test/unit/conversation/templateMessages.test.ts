import {describe, expect, it} from "vitest";
import type {Message, Tool} from "../../../src/conversation/conversation.js";
import {toTemplateMessages, toTemplateTools} from "../../../src/conversation/templateMessages.js";
import {mediaMarkerFor} from "../../../src/engine/vision/mediaMarker.js";

const text = (value: string) => ({type: "text" as const, text: value});
const image = {type: "image" as const, url: "data:image/png;base64,AA", path: "p", urlPath: "p.url"};

describe("a conversation as the model's own template reads it (OpenAI's message shape, as llama-server builds it)", () => {
    it("gives each tool result a tool message of its own, answering its call's id, in order", () => {
        const messages: Message[] = [
            {role: "user", parts: [text("Weather?")], path: "messages[0]"},
            {role: "assistant", path: "messages[1]", parts: [
                {type: "thought", text: "Call it."}, {type: "toolCall", id: "c1", name: "weather", arguments: "{\"city\":\"Paris\"}"},
                {type: "toolCall", id: "c2", name: "weather", arguments: "{\"city\":\"Rome\"}"}
            ]},
            {role: "user", path: "messages[2]", parts: [
                {type: "toolResult", callId: "c1", content: [text("18")], path: "messages[2]", callIdPath: "x"},
                {type: "toolResult", callId: "c2", content: [text("25")], path: "messages[3]", callIdPath: "y"}, text("Thanks")
            ]}
        ];
        expect(toTemplateMessages(messages)).toEqual([
            {role: "user", content: "Weather?"},
            {role: "assistant", content: "", reasoning_content: "Call it.", tool_calls: [
                {type: "function", function: {name: "weather", arguments: "{\"city\":\"Paris\"}"}, id: "c1"},
                {type: "function", function: {name: "weather", arguments: "{\"city\":\"Rome\"}"}, id: "c2"}
            ]},
            {role: "tool", content: "18", tool_call_id: "c1"},
            {role: "tool", content: "25", tool_call_id: "c2"},
            {role: "user", content: "Thanks"}
        ]);
    });

    it("joins text parts by a line break, with none beside an image's marker; a tool result's image reads [image] to a model that cannot see", () => {
        const messages: Message[] = [{role: "user", path: "m", parts: [text("Look:"), image, text("and"), text("this")]}];
        expect(toTemplateMessages(messages, {images: true})[0]!.content).toBe(`Look:${mediaMarkerFor(0)}and\nthis`);
        const result: Message[] = [{role: "user", path: "m", parts: [{type: "toolResult", callId: "c", content: [text("shot:"), image], path: "m", callIdPath: "c"}]}];
        expect(toTemplateMessages(result)[0]).toEqual({role: "tool", content: "shot:\n[image]", tool_call_id: "c"});
    });

    it("lists the client's tool schemas exactly as sent, an absent one as an empty object", () => {
        const parameters = {type: ["string", "null"], format: "date", additionalProperties: true};
        const tools: Tool[] = [
            {name: "a", description: "A", parameters, strict: false, parametersPath: "t0"},
            {name: "b", strict: true, parametersPath: "t1"}
        ];
        expect(toTemplateTools(tools)).toEqual([
            {type: "function", function: {name: "a", description: "A", parameters}},
            {type: "function", function: {name: "b", description: "", parameters: {}}}
        ]);
    });
});
