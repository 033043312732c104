import {describe, expect, it} from "vitest";
import {readsGemma4ToolResponses, withGemma4ToolResponses} from "../../../../src/engine/template/gemma4ToolResponses.js";
import {familyTemplate} from "../../../fixtures/templates/familyTemplates.js";
import type {TemplateMessage} from "../../../../src/engine/template/templateMessage.js";

const call = (name: string, id: string) => ({id, type: "function" as const, function: {name, arguments: "{}"}});

describe("Gemma 4's first templates: a call's results inside the assistant's turn", () => {
    it("applies to the interleaved template only, not to the later one that takes OpenAI's messages", () => {
        expect(readsGemma4ToolResponses(familyTemplate("google-gemma-4-31B-it"))).toBe(false);
        expect(readsGemma4ToolResponses("{{- '<|tool_call>call:' + name }}")).toBe(true);
    });

    it("folds the results, named after their calls (JSON parsed), and the answer after them into one turn", () => {
        const messages: TemplateMessage[] = [
            {role: "user", content: "Weather and time?"},
            {role: "assistant", content: "", reasoning_content: "Two tools.", tool_calls: [call("get_weather", "a"), call("get_time", "b")]},
            {role: "tool", content: "{\"temperature\": 18}", tool_call_id: "a"},
            {role: "tool", content: "noon", tool_call_id: "b"},
            {role: "assistant", content: "18 degrees at noon."},
            {role: "user", content: "Thanks"}
        ];
        expect(withGemma4ToolResponses(messages)).toEqual([
            messages[0],
            {
                role: "assistant", content: "18 degrees at noon.", reasoning_content: "Two tools.", tool_calls: messages[1]!.tool_calls,
                tool_responses: [{name: "get_weather", response: {temperature: 18}}, {name: "get_time", response: "noon"}]
            },
            messages[5]
        ]);
    });
});
