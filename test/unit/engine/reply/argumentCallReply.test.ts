import {describe, expect, it} from "vitest";
import type {ReplyGrammars} from "../../../../src/engine/reply/grammars.js";
import {ArgumentCallReply} from "../../../../src/engine/reply/argumentCallReply.js";
import type {ArgumentCallSyntax} from "../../../../src/engine/preparedPrompt.js";
import type {GenerationEvent} from "../../../../src/engine/generationEvents.js";
import type {ReplyFormat, ToolDefinition} from "../../../../src/engine/generationOptions.js";

/** Grammars stand-in: grammars are labelled objects, a token a character (or `<tool_call>` / `</tool_call>`, Qwen's added tokens). */
const tags = ["<tool_call>", "</tool_call>"];
const tokenize = (text: string) => text.split(/(<\/?tool_call>)/).flatMap((piece) => tags.includes(piece) ? [1000 + tags.indexOf(piece)] : [...piece].map((char) => char.charCodeAt(0)));
const detokenize = (tokens: number[]) => tokens.map((token) => token >= 1000 ? tags[token - 1000] : String.fromCharCode(token)).join("");
const grammars = {
    tokenize: (text: string) => tokenize(text),
    marker: (token: number) => token >= 1000 ? {text: tags[token - 1000], hidden: false, endsText: false} : null,
    literal: (choices: string[], suffix: string, options?: {optional?: boolean}) => ({grammar: "literal", choices, suffix, optional: options?.optional ?? false}),
    rawText: (end: string, bounds?: object) => ({grammar: "raw", end, ...bounds}),
    jsonThen: (schema: unknown, end: string) => ({grammar: "json", schema, end}),
    text: (gbnf: string) => ({grammar: "gbnf", gbnf}),
    banning: (text: string) => ({bias: "ban", text})
} as unknown as ReplyGrammars;

/** Qwen3-Coder, Qwen3.5, Nemotron 3, StepFun, as template/argumentSyntax.ts reads their templates. */
const qwenCoder: ArgumentCallSyntax = {
    kind: "arguments", sectionPrefix: "", prefix: "<tool_call>\n<function=", nameSuffix: ">", keyPrefix: "\n<parameter=", keySuffix: ">\n",
    stringOpen: "", stringClose: "", valueSuffix: "\n</parameter>", separator: "", callSuffix: "\n</function>\n</tool_call>", sectionSuffix: "", betweenCalls: "\n"
};
const glm: ArgumentCallSyntax = {
    kind: "arguments", sectionPrefix: "", prefix: "<tool_call>", nameSuffix: "", keyPrefix: "\n<arg_key>", keySuffix: "</arg_key>\n<arg_value>",
    stringOpen: "", stringClose: "", valueSuffix: "</arg_value>", separator: "", callSuffix: "\n</tool_call>", sectionSuffix: "", betweenCalls: "\n"
};

const weather: ToolDefinition = {name: "get_weather", parameters: {
    type: "object", properties: {city: {type: "string"}, days: {type: "integer"}, units: {type: "string", enum: ["c", "f"]}, options: {type: "object", properties: {hourly: {type: "boolean"}}}},
    required: ["city"]
}};
const time: ToolDefinition = {name: "get_time", parameters: {type: "object", properties: {}}};

function shaper(choice: Extract<ReplyFormat, {type: "toolCalls"}>["choice"], syntax = qwenCoder, stops: string[] = []) {
    return new ArgumentCallReply(grammars, syntax, {type: "toolCalls", tools: [weather, time], choice, parallel: true}, stops);
}

/**
 * Plays a model writing `text` a few characters at a time: what the shaper forces is taken as
 * written (and checked to be what the text has there), as the generation loop evaluates it.
 */
function play(reply: ArgumentCallReply, text: string, step = 3) {
    const events: GenerationEvent[] = [...reply.opening.events];
    let at = 0;
    let finish: string | undefined;
    while (at < text.length && finish == null) {
        const piece = text.slice(at, at + step);
        at += piece.length;
        const result = reply.push(piece);
        events.push(...result.events);
        finish = result.finish;
        if (result.forced != null) {
            const forced = detokenize(result.forced);
            expect(text.slice(at, at + forced.length)).toBe(forced);
            at += forced.length;
        }
    }
    if (finish == null) {
        const end = reply.end("");
        events.push(...end.events);
        finish = end.finish;
    }
    const calls = events.filter((event) => event.type === "toolCall").map((event) => ({
        name: event.name, arguments: events.filter((piece) => piece.type === "toolArguments" && piece.index === event.index).map((piece) => (piece as {text: string}).text).join("")
    }));
    const content = events.filter((event) => event.type === "text").map((event) => event.text).join("");
    return {calls: calls.map((call) => ({name: call.name, arguments: JSON.parse(call.arguments)})), content, finish};
}

const nativeCall = "<function=get_weather>\n<parameter=city>\nSão Paulo \"centro\"\n</parameter>\n<parameter=days>\n3\n</parameter>\n" +
    "<parameter=units>\nc\n</parameter>\n<parameter=options>\n{\"hourly\": true}\n</parameter>\n</function>\n</tool_call>";
const nativeArguments = {city: "São Paulo \"centro\"", days: 3, units: "c", options: {hourly: true}};

describe("ArgumentCallReply: per-argument calls (Qwen3-Coder, GLM)", () => {
    it("required: the family's opening is forced, then the name, each key and the call's end are chosen under grammars", () => {
        const reply = shaper("required");
        expect(detokenize(reply.opening.tokens)).toBe("<tool_call>\n<function=");
        expect(reply.grammar()).toEqual({grammar: "literal", choices: ["get_weather", "get_time"], suffix: ">", optional: false});
        expect(play(reply, nativeCall.slice("<function=".length))).toEqual({calls: [{name: "get_weather", arguments: nativeArguments}], content: "", finish: "toolCalls"});
    });

    it("each value's grammar: a string raw up to its closing tag, an enum among its values, anything else JSON; the call closes only once required keys are there", () => {
        const reply = shaper({name: "get_weather"});
        expect(detokenize(reply.opening.tokens)).toBe("<tool_call>\n<function=get_weather>");
        expect(reply.opening.events).toEqual([{type: "toolCall", index: 0, name: "get_weather"}]);
        expect((reply.grammar() as unknown as {choices: string[]}).choices).toEqual(
            ["\n<parameter=city>\n", "\n<parameter=days>\n", "\n<parameter=units>\n", "\n<parameter=options>\n"]);
        reply.push("\n<parameter=c");
        expect(reply.grammar()).toEqual({grammar: "raw", end: "\n</parameter>"});
        // What every next choice begins with is forced; the grammar goes on after it.
        expect(detokenize(reply.push("Paris\n</parameter>").forced!)).toBe("\n<");
        expect((reply.grammar() as unknown as {choices: string[]}).choices).toEqual(
            ["parameter=days>\n", "parameter=units>\n", "parameter=options>\n", "/function>\n</tool_call>"]);
        reply.push("parameter=d");
        expect(reply.grammar()).toEqual({grammar: "json", schema: {type: "integer"}, end: "\n</parameter>"});
        // A number followed by a line break is complete: the rest of its closing tag is forced, and the next line.
        expect(detokenize(reply.push("12\n").forced!)).toBe("</parameter>\n<");
        reply.push("parameter=u");
        expect(reply.grammar()).toEqual({grammar: "literal", choices: ["c", "f"], suffix: "\n</parameter>", optional: false});
    });

    it("auto: text before the call is content; the call comes back with its arguments as JSON", () => {
        expect(play(shaper("auto"), `Let me look.\n<tool_call>\n${nativeCall}`)).toEqual({
            calls: [{name: "get_weather", arguments: nativeArguments}], content: "Let me look.\n", finish: "toolCalls"
        });
    });

    it("auto: a call whose <tool_call> the model left out is still a call", () => {
        expect(play(shaper("auto"), nativeCall, 5)).toMatchObject({calls: [{name: "get_weather", arguments: nativeArguments}], content: ""});
    });

    it("auto: two calls in one reply, the second opened after the first", () => {
        const text = `<tool_call>\n${nativeCall}\n<tool_call>\n<function=get_time>\n</function>\n</tool_call>`;
        expect(play(shaper("auto"), text, 1).calls).toEqual([{name: "get_weather", arguments: nativeArguments}, {name: "get_time", arguments: {}}]);
    });

    it("auto: text alone stays text; a client stop sequence ends it", () => {
        expect(play(shaper("auto"), "Just an answer.")).toEqual({calls: [], content: "Just an answer.", finish: "stop"});
        expect(play(shaper("auto", qwenCoder, ["STOP"]), "One STOP two")).toEqual({calls: [], content: "One ", finish: "stop"});
    });

    it("none: the call's opening ends the reply, and its token is banned", () => {
        const reply = shaper("none");
        expect(reply.tokenBias()).toEqual({bias: "ban", text: "<tool_call>"});
        expect(play(reply, "Sunny. <tool_call>\n<function=get_time>")).toEqual({calls: [], content: "Sunny. ", finish: "stop"});
    });

    it("GLM: the name right after <tool_call>, <arg_key>/<arg_value> pairs", () => {
        const text = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>";
        expect(play(shaper("auto", glm), text).calls).toEqual([{name: "get_weather", arguments: {city: "Paris", days: 2}}]);
        expect(play(shaper("required", glm), text.slice("<tool_call>".length)).calls).toEqual([{name: "get_weather", arguments: {city: "Paris", days: 2}}]);
    });

    it("a reply cut inside a value still hands on the call, its JSON closed", () => {
        const reply = shaper("required");
        const named = reply.push("get_weather");
        // The name's end and the markup every key begins with are forced.
        expect(detokenize(named.forced!)).toBe(">\n<parameter=");
        const events = [named, reply.push("city>\nPar")].flatMap((step) => step.events);
        events.push(...reply.cut("is"));
        const args = events.filter((event) => event.type === "toolArguments").map((event) => (event as {text: string}).text).join("");
        expect(JSON.parse(args)).toEqual({city: "Paris"});
    });
});

/** Gemma 4: `call:NAME{key:value,…}`, strings between `<|"|>` quotes, other values bare. */
const gemma: ArgumentCallSyntax = {
    kind: "arguments", sectionPrefix: "", prefix: "<|tool_call>call:", nameSuffix: "{", keyPrefix: "", keySuffix: ":", stringOpen: "<|\"|>", stringClose: "<|\"|>",
    valueSuffix: "", separator: ",", callSuffix: "}<tool_call|>", sectionSuffix: "<|tool_response>", betweenCalls: ""
};

describe("ArgumentCallReply: Gemma 4's notation", () => {
    const text = "<|tool_call>call:get_weather{city:<|\"|>Paris, FR<|\"|>,days:12,options:{hourly:true}}<tool_call|>";

    it("auto and required: strings between quotes, a number ended by what follows it, an object in the notation, back as JSON arguments", () => {
        const expected = [{name: "get_weather", arguments: {city: "Paris, FR", days: 12, options: {hourly: true}}}];
        expect(play(shaper("auto", gemma), text, 1).calls).toEqual(expected);
        expect(play(shaper("required", gemma), text.slice("<|tool_call>call:".length), 2).calls).toEqual(expected);
    });

    it("a number ends at the separator while a required key is left (not at the call's end); the next key's grammar starts after the one written", () => {
        const reply = shaper({name: "get_weather"}, gemma);
        reply.push("days:");
        const {gbnf} = reply.grammar() as unknown as {gbnf: string};
        expect(gbnf.split("\n")[0]).toBe("root ::= (\"-\"? (\"0\" | [1-9] [0-9]{0,15})) (\",\")");
        reply.push("12,");
        expect(reply.grammar()).toEqual({grammar: "literal", choices: ["city:<|\"|>", "units:<|\"|>", "options:"], suffix: "", optional: false});
    });

    const configure: ToolDefinition = {name: "configure", parameters: {type: "object", properties: {
        opts: {type: "object", properties: {unit: {type: "string"}, days: {type: "array", items: {type: "integer"}}, note: {type: ["string", "null"]}}},
        tags: {type: "array", items: {type: "string"}}
    }, required: ["opts"]}};
    const nested = "<|tool_call>call:configure{opts:{days:[1,2],note:<|\"|>a \"b\", {c}: d\ne<|\"|>,unit:<|\"|>c<|\"|>},tags:[<|\"|>x,y<|\"|>,<|\"|>]z<|\"|>]}<tool_call|>";
    const nestedArguments = {opts: {days: [1, 2], note: "a \"b\", {c}: d\ne", unit: "c"}, tags: ["x,y", "]z"]};

    for (const step of [1, 2, 5]) {
        it(`nested objects and arrays in the notation at every depth (keys bare, strings raw, commas and brackets inside strings kept), streamed ${step} characters a push`, () => {
            const reply = new ArgumentCallReply(grammars, gemma, {type: "toolCalls", tools: [configure], choice: "auto", parallel: false}, []);
            expect(play(reply, nested, step).calls).toEqual([{name: "configure", arguments: nestedArguments}]);
        });
    }

    it("forced: a nested value's grammar is the notation's, then what may follow it", () => {
        const reply = new ArgumentCallReply(grammars, gemma, {type: "toolCalls", tools: [configure], choice: {name: "configure"}, parallel: false}, []);
        expect(detokenize(reply.opening.tokens)).toBe("<|tool_call>call:configure{");
        expect(reply.push("opts:").events).toEqual([{type: "toolArguments", index: 0, text: "{\"opts\": "}]);
        const {gbnf} = reply.grammar() as unknown as {gbnf: string};
        expect(gbnf).toMatch(/^root ::= nv-\d+ \("," \| "}"\)\n/);
        expect(gbnf).toContain("\"days:\"");
    });

    it("a reply cut inside a nested value hands on the JSON written so far, a key held back until its colon", () => {
        const reply = new ArgumentCallReply(grammars, gemma, {type: "toolCalls", tools: [configure], choice: {name: "configure"}, parallel: false}, []);
        const events = [reply.push("opts:{days:[1,2],un")].flatMap((one) => one.events);
        events.push(...reply.cut(""));
        expect(events.filter((event) => event.type === "toolArguments").map((event) => (event as {text: string}).text).join("")).toBe("{\"opts\": {\"days\":[1,2],}");
    });
});
