import {LlamaText, SpecialTokensText} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import type {ReplyGrammars} from "../../../../src/engine/reply/grammars.js";
import {ToolCallReply} from "../../../../src/engine/reply/toolCallReply.js";
import type {ToolCallSyntax} from "../../../../src/engine/preparedPrompt.js";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";
import type {ReplyFormat} from "../../../../src/engine/generationOptions.js";
import {JinjaChatTemplate} from "../../../../src/engine/template/jinjaChatTemplate.js";
import {deriveCallSyntax} from "../../../../src/engine/template/templateCallSyntax.js";
import {familyTemplate, markerTokenizer, templateMarkers} from "../../../fixtures/templates/familyTemplates.js";

/** Kimi K2's markers are control tokens of its vocabulary; other text is one token a character. */
const tags = ["<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"];
const split = new RegExp(`(${tags.map((tag) => tag.replace(/[|]/g, "\\|")).join("|")})`);
const tokenizeText = (text: string) => text.split(split).flatMap((piece) => tags.includes(piece) ? [1000 + tags.indexOf(piece)] : [...piece].map((char) => char.charCodeAt(0)));
const detokenize = (tokens: readonly number[]) => tokens.map((token) => token >= 1000 ? tags[token - 1000] : String.fromCharCode(token)).join("");
const grammars = {
    tokenize: (text: LlamaText | string) => typeof text === "string" ? tokenizeText(text)
        : text.values.flatMap((value) => typeof value === "string" || value instanceof SpecialTokensText ? tokenizeText(typeof value === "string" ? value : value.value) : []),
    marker: (token: number) => token >= 1000 ? {text: tags[token - 1000], hidden: false, endsText: false} : null,
    literal: (choices: string[], suffix: string, options?: {optional?: boolean}) => ({grammar: "literal", choices, suffix, optional: options?.optional ?? false}),
    json: (schema: unknown) => ({grammar: "json", schema}),
    closingBias: () => undefined,
    banning: (text: string) => ({bias: "ban", text})
} as unknown as ReplyGrammars;

/** Kimi K2's syntax as template/templateCallSyntax.ts reads its official template, made markup as engine/chatPrompt.ts makes it. */
const source = familyTemplate("moonshotai-Kimi-K2");
const derived = deriveCallSyntax(new JinjaChatTemplate(source, {bos: "", eos: "<|im_end|>", addBos: false, addEos: false}), markerTokenizer(templateMarkers(source)))!;
const markup = (text: string) => LlamaText(new SpecialTokensText(text));
const kimi = (first: number): ToolCallSyntax => ({
    sectionPrefix: markup(derived.sectionPrefix), sectionSuffix: markup(derived.sectionSuffix), prefix: markup(derived.prefix), paramsPrefix: derived.paramsPrefix,
    suffix: markup(derived.suffix), betweenCalls: markup(derived.betweenCalls!), callIndex: {at: derived.callIndex!.at, first, idHead: derived.callIndex!.idHead}
});

const weather = {name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}} as const;
const time = {name: "get_time", parameters: {type: "object", properties: {}}} as const;

/**
 * Plays a model writing `text` a token at a time (a marker is one token, as in Kimi's vocabulary):
 * what the shaper forces is taken as written, and must be what the text has there.
 */
function play(choice: Extract<ReplyFormat, {type: "toolCalls"}>["choice"], first: number, text: string) {
    const shaper = new ToolCallReply(grammars, kimi(first), {type: "toolCalls", tools: [weather, time], choice, parallel: true}, []);
    const opening = detokenize(shaper.opening.tokens);
    expect(text.startsWith(opening)).toBe(true);
    const events: GenerationEvent[] = [...shaper.opening.events];
    const pieces = text.slice(opening.length).split(split).flatMap((piece) => tags.includes(piece) ? [piece] : [...piece]);
    for (let at = 0; at < pieces.length; at++) {
        const step = shaper.push(pieces[at]!, 10_000);
        events.push(...step.events);
        if (step.finish != null)
            break;
        if (step.forced != null) {
            const forced = detokenize(step.forced);
            expect(pieces.slice(at + 1).join("").startsWith(forced)).toBe(true);
            // Skip the pieces the forced tokens wrote.
            let skipped = "";
            while (skipped.length < forced.length)
                skipped += pieces[++at];
        }
    }
    events.push(...shaper.end("").events);
    return events.filter((event) => event.type === "toolCall");
}

const call = (name: string, index: number, args: string) => `<|tool_call_begin|>functions.${name}:${index}<|tool_call_argument_begin|>${args}<|tool_call_end|>`;

describe("numbered calls (Kimi K2's functions.NAME:0, :1, …)", () => {
    const two = (first: number) => `<|tool_calls_section_begin|>${call("get_weather", first, "{\"city\": \"Paris\"}")}${call("get_time", first + 1, "{}")}<|tool_calls_section_end|>`;

    it("free: a second call in one reply gets the next number, not the first's; each call's id is its name for itself, as llama-server's", () => {
        expect(play("auto", 0, two(0))).toEqual([
            {type: "toolCall", index: 0, name: "get_weather", id: "functions.get_weather:0"}, {type: "toolCall", index: 1, name: "get_time", id: "functions.get_time:1"}
        ]);
    });

    it("forced (required): the numbers count up from the first the template gives the reply, each forced with its name", () => {
        expect(play("required", 0, two(0))).toHaveLength(2);
        // A template counting through the conversation (Kimi K2 Instruct's) after three earlier calls.
        expect(play("required", 3, two(3)).map((event) => event.type === "toolCall" && event.id)).toEqual(["functions.get_weather:3", "functions.get_time:4"]);
    });

    it("the name's grammar ends with the call's own number; a named call's forced opening carries the first", () => {
        const shaper = new ToolCallReply(grammars, kimi(2), {type: "toolCalls", tools: [weather, time], choice: "required", parallel: true}, []);
        expect(shaper.grammar()).toMatchObject({choices: ["get_weather", "get_time"], suffix: ":2<|tool_call_argument_begin|>"});
        const named = new ToolCallReply(grammars, kimi(2), {type: "toolCalls", tools: [weather, time], choice: {name: "get_time"}, parallel: true}, []);
        expect(detokenize(named.opening.tokens)).toBe("<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:2<|tool_call_argument_begin|>");
    });
});
