import {LlamaText} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";
import type {ReplyGrammars} from "../../../../src/engine/reply/grammars.js";
import {HarmonyReply} from "../../../../src/engine/reply/harmonyReply.js";
import type {ReplyShaper, ShaperStep} from "../../../../src/engine/reply/replyShaper.js";
import {TextReply} from "../../../../src/engine/reply/textReply.js";
import {ToolCallReply} from "../../../../src/engine/reply/toolCallReply.js";
import type {ToolCallSyntax} from "../../../../src/engine/preparedPrompt.js";

/**
 * What GPT-OSS writes in OpenAI's Harmony format, as llama.cpp's tests/test-chat.cpp shows it, read
 * into a reply. Grammars stand-in: a "token" is a character code, a Harmony marker one token of
 * its own (control tokens, which detokenize to nothing: the shaper is shown their text).
 */
const markers = ["<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|end|>"];
const grammars = {
    tokenize: (text: LlamaText | string) => {
        const value = typeof text === "string" ? text : text.toString();
        return markers.includes(value) ? [2000 + markers.indexOf(value)] : [...value].map((char) => char.charCodeAt(0));
    },
    marker: () => null,
    literal: (choices: string[], suffix: string) => ({grammar: "literal", choices, suffix}),
    json: (schema: unknown) => ({grammar: "json", schema}),
    closingBias: (inString: boolean) => ({bias: "closing", inString}),
    banning: (text: string) => ({bias: "ban", text})
} as unknown as ReplyGrammars;

/** GPT-OSS's call syntax as templateCallSyntax.ts reads it from the official template (used for forced calls). */
const syntax: ToolCallSyntax = {
    sectionPrefix: LlamaText(""), sectionSuffix: LlamaText(""), prefix: LlamaText("to=functions."),
    paramsPrefix: "<|channel|>commentary json<|message|>", suffix: LlamaText("<|call|>"), betweenCalls: null
};
const weather = {name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}} as const;

function calls(choice: "auto" | "none" = "auto"): ReplyShaper {
    return new ToolCallReply(grammars, syntax, {type: "toolCalls", tools: [weather], choice, parallel: true}, []);
}

/** Pushes the pieces (each as a token would come), ends the reply, and sums up what the client gets. */
function read(inner: ReplyShaper, pieces: string[], ending: "end" | "cut" = "end") {
    const shaper = new HarmonyReply(inner, grammars);
    const events: GenerationEvent[] = [];
    let finish: ShaperStep["finish"];
    for (const piece of pieces) {
        const step = shaper.push(piece, 10_000);
        events.push(...step.events);
        finish ??= step.finish;
    }
    if (ending === "end") {
        const step = shaper.end("");
        events.push(...step.events);
        finish ??= step.finish;
    } else
        events.push(...shaper.cut(""));
    const joined = (type: string) => events.filter((event) => event.type === type).map((event) => "text" in event ? event.text : "").join("") || null;
    return {
        reasoning: joined("reasoning"), content: joined("text"), finish: finish ?? null,
        calls: events.filter((event) => event.type === "toolCall").map((event) => "name" in event ? event.name : ""),
        arguments: joined("toolArguments"), reasoningTokens: shaper.reasoningTokens
    };
}

const split = (text: string) => text.split(/(<\|[a-z]+\|>)/).filter((piece) => piece !== "");
const args = "{\"city\": \"Paris\"}";

describe("HarmonyReply", () => {
    it("the analysis channel is the reasoning, the final channel the answer", () => {
        expect(read(new TextReply([]), split("<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>final<|message|>Hello, world!")))
            .toMatchObject({reasoning: "I'm\nthinking", content: "Hello, world!", finish: "stop", calls: []});
    });

    it.each([
        ["after the analysis, its recipient in the role header", `<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>${args}`, "Need the weather."],
        ["its recipient in the channel header, constrained to json", `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>${args}`, null],
        ["in the analysis channel itself", `<|channel|>analysis to=functions.get_weather<|message|>${args}`, null],
        ["the recipient first, then the analysis channel", ` to=functions.get_weather<|channel|>analysis <|constrain|>json<|message|>${args}`, null]
    ])("a call %s is a tool call, its text the arguments", (_, text, reasoning) => {
        expect(read(calls(), split(text))).toMatchObject({reasoning, content: null, calls: ["get_weather"], arguments: args, finish: "toolCalls"});
    });

    it("a commentary preamble before a call is the answer's text", () => {
        const text = `<|channel|>commentary<|message|>Let me check.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>${args}`;
        expect(read(calls(), split(text))).toMatchObject({content: "Let me check.", calls: ["get_weather"], arguments: args, finish: "toolCalls"});
    });

    it("a markup token split across pieces is still read", () => {
        expect(read(new TextReply([]), ["<|channel|>", "anal", "ysis", "<|message|>", "Hm", "<|end|>", "<|start|>", "assi", "stant", "<|channel|>", "final", "<|message|>", "Hi"]))
            .toMatchObject({reasoning: "Hm", content: "Hi"});
    });

    it("a reply with no Harmony header at all is the answer", () => {
        expect(read(new TextReply([]), ["Hello", " there"])).toMatchObject({reasoning: null, content: "Hello there", finish: "stop"});
    });

    it("a call to a tool the request does not have, or with tool_choice none, stays text", () => {
        const unknown = `<|channel|>commentary to=functions.get_time<|message|>{}`;
        expect(read(calls(), split(unknown))).toMatchObject({calls: [], content: "{}"});
        expect(read(calls("none"), split(`<|channel|>commentary to=functions.get_weather<|message|>${args}`))).toMatchObject({calls: []});
    });

    it("cut in the analysis: what was thought is kept, as reasoning, and counted", () => {
        expect(read(new TextReply([]), split("<|channel|>analysis<|message|>Long thought"), "cut")).toMatchObject({reasoning: "Long thought", content: null});
        expect(read(new TextReply([]), ["<|channel|>", "analysis", "<|message|>", "a", "b", "c"]).reasoningTokens).toBe(3);
    });
});
