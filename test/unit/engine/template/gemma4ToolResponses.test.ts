import {describe, expect, it} from "vitest";
import {readsGemma4ToolResponses, withGemma4ToolResponses} from "../../../../src/engine/template/gemma4ToolResponses.js";
import {familyTemplate} from "../../../fixtures/templates/familyTemplates.js";
import type {TemplateMessage} from "../../../../src/engine/template/templateMessage.js";
import {JinjaChatTemplate} from "../../../../src/engine/template/jinjaChatTemplate.js";
import {notationOf} from "../../../../src/engine/reply/notationJson.js";

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

describe("Gemma 4: an earlier call's nested arguments in the history", () => {
    const args = {opts: {unit: "c", days: [1, 2], Note: 2.5, deep: {ok: true}}, tags: ["x, y"]};

    it("are rendered by the template in its notation, as the grammar forces a new call's (notationJson.ts writes the same text)", () => {
        const source = familyTemplate("google-gemma-4-31B-it");
        const messages: TemplateMessage[] = [
            {role: "user", content: "Configure it."},
            {role: "assistant", content: "", tool_calls: [{id: "a", type: "function", function: {name: "configure", arguments: JSON.stringify(args)}}]},
            {role: "tool", content: "done", tool_call_id: "a"}
        ];
        const text = new JinjaChatTemplate(source, {bos: "<bos>", eos: "<turn|>", addBos: true, addEos: false}).render({messages, thinking: false});
        const written = `call:configure{opts:{days:[1,2],deep:{ok:true},Note:2.5,unit:<|"|>c<|"|>},tags:[<|"|>x, y<|"|>]}`;
        expect(text).toContain(`<|tool_call>${written}<tool_call|>`);
        expect(`call:configure${notationOf(args, "<|\"|>")}`).toBe(written);
    });
});
