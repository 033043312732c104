import {LlamaText, SpecialToken, SpecialTokensText} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import type {ReplyGrammars} from "../../../../src/engine/reply/grammars.js";
import {CallOrAnswerReply} from "../../../../src/engine/reply/callOrAnswerReply.js";
import {ToolCallReply} from "../../../../src/engine/reply/toolCallReply.js";
import type {ToolCallSyntax} from "../../../../src/engine/preparedPrompt.js";
import type {ReplyFormat} from "../../../../src/engine/generationOptions.js";

/**
 * Grammars stand-in: grammars and biases are labelled objects; a "token" is a character code, or a
 * tag's own token as in Qwen's and Mistral's vocabularies. Qwen's are added tokens, read in any
 * text; Mistral's are control tokens, read only in special text (as forced markup is tokenized: a
 * string, or a special-text value) and hidden from a reply's text.
 */
const tags = ["<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]"];
const [toolCallsToken, argsToken] = [1002, 1003];
const addedTags = 2;
const tokenizeText = (text: string, special: boolean) => text.split(/(<\/?tool_call>|\[TOOL_CALLS\]|\[ARGS\])/).flatMap((piece) => {
    const tag = tags.indexOf(piece);
    return tag >= 0 && (special || tag < addedTags) ? [1000 + tag] : [...piece].map((char) => char.charCodeAt(0));
});
const grammars = {
    tokenize: (text: LlamaText | string) => typeof text === "string"
        ? tokenizeText(text, true)
        : text.values.flatMap((value) => typeof value === "string" ? tokenizeText(value, false) : value instanceof SpecialTokensText ? tokenizeText(value.value, true) : []),
    marker: (token: number) => token >= 1000 ? {text: tags[token - 1000], hidden: token === toolCallsToken || token === argsToken, endsText: false} : null,
    literal: (choices: string[], suffix: string, options?: {optional?: boolean}) => ({grammar: "literal", choices, suffix, optional: options?.optional ?? false}),
    json: (schema: unknown) => ({grammar: "json", schema}),
    jsonOr: (schema: unknown, opening: unknown) => ({grammar: "jsonOr", schema, opening}),
    closingBias: (inString: boolean) => ({bias: "closing", inString}),
    banning: (text: string) => ({bias: "ban", text})
} as unknown as ReplyGrammars;

const qwenSyntax: ToolCallSyntax = {
    sectionPrefix: LlamaText(""),
    sectionSuffix: LlamaText(""),
    prefix: LlamaText("<tool_call>\n{\"name\": \""),
    paramsPrefix: "\", \"arguments\": ",
    suffix: LlamaText("}\n</tool_call>"),
    betweenCalls: LlamaText("\n")
};

/** Llama 3.x: a call is a bare JSON object, opened by plain text rather than a token of its own. */
const llama3Syntax: ToolCallSyntax = {
    sectionPrefix: LlamaText(""),
    sectionSuffix: LlamaText(""),
    prefix: LlamaText("{\"name\": \""),
    paramsPrefix: "\", \"parameters\": ",
    suffix: LlamaText("}"),
    betweenCalls: null
};

/** Mistral Nemo (node-llama-cpp's Mistral wrapper): the reply's calls are one JSON array after `[TOOL_CALLS]`, a control token. */
const mistralSyntax: ToolCallSyntax = {
    sectionPrefix: LlamaText(new SpecialTokensText("[TOOL_CALLS]"), "["),
    sectionSuffix: LlamaText("]", new SpecialToken("EOS")),
    prefix: LlamaText("{\"name\": \""),
    paramsPrefix: "\", \"arguments\": ",
    suffix: LlamaText("}"),
    betweenCalls: LlamaText(", ")
};

/** Ministral 3, Mistral Small 3.x (their Jinja templates): `[TOOL_CALLS]name[ARGS]{…}` for each call, both markers control tokens. */
const ministralSyntax: ToolCallSyntax = {
    sectionPrefix: LlamaText(""),
    sectionSuffix: LlamaText(new SpecialToken("EOS")),
    prefix: LlamaText(new SpecialTokensText("[TOOL_CALLS]")),
    paramsPrefix: "[ARGS]",
    suffix: LlamaText(""),
    betweenCalls: LlamaText("")
};

const weather = {name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}} as const;
const time = {name: "get_time", parameters: {type: "object", properties: {}}} as const;

function reply(choice: Extract<ReplyFormat, {type: "toolCalls"}>["choice"], {parallel = true, stops = [] as string[]} = {}): ToolCallReply {
    return new ToolCallReply(grammars, qwenSyntax, {type: "toolCalls", tools: [weather, time], choice, parallel}, stops);
}

const chars = (text: string) => text.length;
/** A token budget that never runs out. */
const plenty = 10_000;

describe("ToolCallReply", () => {
    it("auto: streams text until the model opens a call, then forces the markup and constrains name and arguments", () => {
        const shaper = reply("auto");
        expect(shaper.opening).toEqual({tokens: [], events: []});
        expect(shaper.grammar()).toBeUndefined();
        expect(shaper.push("Sure. <tool_", plenty)).toEqual({events: [{type: "text", text: "Sure. "}]});

        const opened = shaper.push("call>", plenty);
        expect(opened).toEqual({events: [], forced: grammars.tokenize("\n{\"name\": \"")});
        expect(shaper.grammar()).toEqual({grammar: "literal", choices: ["get_weather", "get_time"], suffix: "\", \"arguments\": ", optional: false});

        // Both names start "get_": sampled on; "w" leaves one, whose rest and params prefix are forced.
        expect(shaper.push("get_", plenty)).toEqual({events: []});
        expect(shaper.push("w", plenty)).toEqual({
            events: [{type: "toolCall", index: 0, name: "get_weather"}], forced: grammars.tokenize("eather\", \"arguments\": ")
        });
        expect(shaper.grammar()).toEqual({grammar: "json", schema: weather.parameters});

        expect(shaper.push("{\"city\": ", plenty)).toEqual({events: [{type: "toolArguments", index: 0, text: "{\"city\": "}]});
        const closed = shaper.push("\"Paris\"}\n\n", plenty);
        expect(closed.events).toEqual([{type: "toolArguments", index: 0, text: "\"Paris\"}"}]);
        expect(closed.forced).toEqual(grammars.tokenize("}\n</tool_call>"));
        expect(shaper.grammar()).toEqual({grammar: "literal", choices: ["\n<tool_call>"], suffix: "", optional: true});

        expect(shaper.end("")).toEqual({events: [], finish: "toolCalls"});
    });

    it("forces whatever is left of the one name and params prefix the model's text can still become", () => {
        const opened = () => {
            const shaper = reply("required");
            expect(shaper.grammar()).toMatchObject({grammar: "literal"});
            return shaper;
        };
        expect(opened().push("get_time\", ", plenty)).toEqual({events: [{type: "toolCall", index: 0, name: "get_time"}], forced: grammars.tokenize("\"arguments\": ")});
        expect(opened().push("get_time\", \"arguments\": ", plenty)).toEqual({events: [{type: "toolCall", index: 0, name: "get_time"}]});
    });

    it("auto: plain text ends at a stop sequence or at the end of generation with finish stop", () => {
        expect(reply("auto", {stops: ["END"]}).push("Hi END", plenty)).toEqual({events: [{type: "text", text: "Hi "}], finish: "stop"});
        const shaper = reply("auto");
        shaper.push("Just text <tool", plenty);
        expect(shaper.end("")).toEqual({events: [{type: "text", text: "<tool"}], finish: "stop"});
    });

    it("none: the opening of a call ends the text reply", () => {
        const shaper = reply("none");
        expect(shaper.opening.tokens).toEqual([]);
        expect(shaper.push("Sunny. <tool_call>{", plenty)).toEqual({events: [{type: "text", text: "Sunny. "}], finish: "stop"});
    });

    it("auto with a plain-text opening (Llama 3): a call only starts the reply; JSON further on is text", () => {
        const shaper = () => new ToolCallReply(grammars, llama3Syntax, {type: "toolCalls", tools: [weather, time], choice: "auto", parallel: true}, []);
        const answer = shaper();
        expect(answer.push("Sure! Here it is: {\"name\": \"Bob\"}", plenty)).toEqual({events: [{type: "text", text: "Sure! Here it is: {\"name\": \"Bob\"}"}]});
        expect(answer.end("")).toEqual({events: [], finish: "stop"});

        const call = shaper();
        expect(call.push(" {\"na", plenty)).toEqual({events: []});
        expect(call.push("me\":", plenty)).toEqual({events: [], forced: grammars.tokenize(" \"")});
        expect(call.grammar()).toMatchObject({grammar: "literal", choices: ["get_weather", "get_time"]});

        const held = shaper();
        expect(held.push("{", plenty)).toEqual({events: []});
        expect(held.end("}")).toEqual({events: [{type: "text", text: "{}"}], finish: "stop"});
    });

    it("auto with a plain-text opening (Llama 3): a stop sequence in the held opening ends the reply", () => {
        const shaper = new ToolCallReply(grammars, llama3Syntax, {type: "toolCalls", tools: [weather], choice: "auto", parallel: true}, ["\n\n\n"]);
        expect(shaper.push("\n", plenty)).toEqual({events: []});
        expect(shaper.push("\n\n {", plenty)).toEqual({events: [], finish: "stop"});
    });

    it("none with a plain-text opening (Llama 3): JSON in the answer does not cut it short", () => {
        const shaper = new ToolCallReply(grammars, llama3Syntax, {type: "toolCalls", tools: [weather], choice: "none", parallel: true}, []);
        expect(shaper.push("{\"name\": \"Bob\"}", plenty)).toEqual({events: [{type: "text", text: "{\"name\": \"Bob\"}"}]});
    });

    it("required: the reply opens with the call prefix, forced", () => {
        const shaper = reply("required");
        expect(shaper.opening).toEqual({tokens: grammars.tokenize("<tool_call>\n{\"name\": \""), events: []});
        expect(shaper.grammar()).toMatchObject({grammar: "literal", choices: ["get_weather", "get_time"]});
        expect(shaper.push("get_time\", \"arguments\": ", plenty).events).toEqual([{type: "toolCall", index: 0, name: "get_time"}]);
    });

    it("named: prefix, name and arguments prefix are forced; exactly one call", () => {
        const shaper = reply({name: "get_weather"});
        expect(shaper.opening).toEqual({
            tokens: grammars.tokenize("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "),
            events: [{type: "toolCall", index: 0, name: "get_weather"}]
        });
        expect(shaper.grammar()).toEqual({grammar: "json", schema: weather.parameters});
        expect(shaper.push("{\"city\": \"Oslo\"}", plenty)).toEqual({events: [{type: "toolArguments", index: 0, text: "{\"city\": \"Oslo\"}"}], finish: "toolCalls"});
    });

    it("parallel: after a call the model may open another, numbered by index", () => {
        const shaper = reply("required");
        shaper.push("get_time\", \"arguments\": ", plenty);
        expect(shaper.push("{}", plenty).forced).toEqual(grammars.tokenize("}\n</tool_call>"));
        // Begun, the next call's opening is forced whole.
        expect(shaper.push("\n", plenty)).toEqual({events: [], forced: [...grammars.tokenize("<tool_call>"), ...grammars.tokenize("\n{\"name\": \"")]});
        expect(shaper.push("get_weather\", \"arguments\": ", plenty).events).toEqual([{type: "toolCall", index: 1, name: "get_weather"}]);
        expect(shaper.push("{\"city\":\"x\"}", plenty).events).toEqual([{type: "toolArguments", index: 1, text: "{\"city\":\"x\"}"}]);
    });

    it("ends after a whole call when the budget left could not hold another one", () => {
        const shaper = reply("required");
        shaper.push("get_time\", \"arguments\": ", plenty);
        expect(shaper.push("{}", 20)).toEqual({events: [{type: "toolArguments", index: 0, text: "{}"}], finish: "toolCalls"});
    });

    it("parallel_tool_calls false: the reply ends after the first call", () => {
        const shaper = reply("required", {parallel: false});
        shaper.push("get_time\", \"arguments\": ", plenty);
        expect(shaper.push("{}", plenty)).toEqual({events: [{type: "toolArguments", index: 0, text: "{}"}], finish: "toolCalls"});
    });

    it("favours closing tokens only when the budget left is what the arguments still need", () => {
        const shaper = reply({name: "get_weather"});
        shaper.push("{\"city\": \"Par", plenty);
        const reserve = 8 + chars("{\"city\":\"\"}");
        expect(shaper.tokenBias(1000)).toBeUndefined();
        expect(shaper.tokenBias(reserve)).toEqual({bias: "closing", inString: true});
        // An optional property can be left out: only the braces are needed.
        const optional = new ToolCallReply(grammars, qwenSyntax, {type: "toolCalls", tools: [{...weather, parameters: {...weather.parameters, required: []}}], choice: {name: "get_weather"}, parallel: true}, []);
        optional.push("{\"city\": \"Par", plenty);
        expect(optional.tokenBias(reserve)).toBeUndefined();
        expect(optional.tokenBias(8 + chars("{}"))).toEqual({bias: "closing", inString: true});
    });

    describe("auto with a JSON answer (response_format): calls or that JSON, chosen at the first token", () => {
        const answer = {schema: {type: "object", properties: {city: {type: "string"}}, required: ["city"], additionalProperties: false}} as const;
        const withAnswer = (syntax: ToolCallSyntax) => new CallOrAnswerReply(grammars,
            new ToolCallReply(grammars, syntax, {type: "toolCalls", tools: [weather], choice: "auto", parallel: true, answer}, ["STOP"]), answer.schema);

        it("Qwen: the first token is the call's own token or JSON; JSON is streamed as text and ends the reply when whole", () => {
            const shaper = withAnswer(qwenSyntax);
            expect(shaper.grammar()).toEqual({grammar: "jsonOr", schema: answer.schema, opening: {token: 1000}});
            expect(shaper.push("{\"city\": ", plenty)).toEqual({events: [{type: "text", text: "{\"city\": "}]});
            expect(shaper.grammar()).toEqual({grammar: "jsonOr", schema: answer.schema, opening: {token: 1000}});
            // A stop sequence does not cut JSON; the value's end ends the reply.
            expect(shaper.push("\"STOP\"}", plenty)).toEqual({events: [{type: "text", text: "\"STOP\"}"}], finish: "stop"});
        });

        it("Qwen: the call's token opens a call as without an answer", () => {
            const shaper = withAnswer(qwenSyntax);
            expect(shaper.push("<tool_call>", plenty)).toEqual({events: [], forced: grammars.tokenize("\n{\"name\": \"")});
            expect(shaper.grammar()).toMatchObject({grammar: "literal", choices: ["get_weather"]});
        });

        it("Llama 3: text is held while it could still be a tool's whole opening; an answer may begin with a \"name\" key", () => {
            const opening = "{\"name\": \"get_weather\", \"parameters\": ";
            const shaper = withAnswer(llama3Syntax);
            expect(shaper.grammar()).toEqual({grammar: "jsonOr", schema: answer.schema, opening: {texts: [opening]}});
            expect(shaper.push("{\"", plenty)).toEqual({events: []});
            expect(shaper.push("city\": \"Paris\"}", plenty)).toEqual({events: [{type: "text", text: "{\"city\": \"Paris\"}"}], finish: "stop"});

            const named = withAnswer(llama3Syntax);
            expect(named.push("{\"name\": \"get_", plenty)).toEqual({events: []});
            expect(named.push("w", plenty)).toEqual({events: []});
            expect(named.push("ine\"}", plenty)).toEqual({events: [{type: "text", text: "{\"name\": \"get_wine\"}"}], finish: "stop"});

            const calling = withAnswer(llama3Syntax);
            expect(calling.push("{\"name\": \"get_weather\"", plenty)).toEqual({events: []});
            expect(calling.push(", \"parameters\": {\"city", plenty)).toEqual({
                events: [{type: "toolCall", index: 0, name: "get_weather"}, {type: "toolArguments", index: 0, text: "{\"city"}]
            });
            expect(calling.grammar()).toEqual({grammar: "json", schema: weather.parameters});
        });

        it("an answer the model ends or the budget cuts comes out as far as it got, held text included", () => {
            const ended = withAnswer(llama3Syntax);
            ended.push("{\"", plenty);
            expect(ended.end("")).toEqual({events: [{type: "text", text: "{\""}], finish: "stop"});
            const cut = withAnswer(qwenSyntax);
            cut.push("{\"ci", plenty);
            expect(cut.cut("ty")).toEqual([{type: "text", text: "ty"}]);
            expect(cut.tokenBias(1)).toEqual({bias: "closing", inString: true});
        });
    });
});

describe("ToolCallReply on templates whose call markers are control tokens (Mistral)", () => {
    const mistral = (syntax: ToolCallSyntax, choice: Extract<ReplyFormat, {type: "toolCalls"}>["choice"]) =>
        new ToolCallReply(grammars, syntax, {type: "toolCalls", tools: [weather, time], choice, parallel: true}, []);

    it("has the generation show the markers, which detokenize to nothing, as their text", () => {
        expect(mistral(mistralSyntax, "auto").shownTokens).toEqual(new Map([[toolCallsToken, "[TOOL_CALLS]"]]));
        expect(mistral(ministralSyntax, "auto").shownTokens).toEqual(new Map([[toolCallsToken, "[TOOL_CALLS]"], [argsToken, "[ARGS]"]]));
        expect(reply("auto").shownTokens).toEqual(new Map());
    });

    it("Nemo, auto: [TOOL_CALLS] after text opens the call section; the array's `[` and the first call's opening are forced", () => {
        const shaper = mistral(mistralSyntax, "auto");
        expect(shaper.push("Let me check.", plenty)).toEqual({events: [{type: "text", text: "Let me check."}]});
        expect(shaper.push("[TOOL_CALLS]", plenty)).toEqual({events: [], forced: grammars.tokenize("[{\"name\": \"")});
        expect(shaper.push("get_w", plenty).events).toEqual([{type: "toolCall", index: 0, name: "get_weather"}]);
        expect(shaper.push("{}", plenty).forced).toEqual(grammars.tokenize("}"));
        // Another call after a separator, or the array's end, which ends the reply.
        expect(shaper.grammar()).toEqual({grammar: "literal", choices: [", {\"name\":", "]"], suffix: "", optional: true});
        expect(shaper.push("]", plenty)).toEqual({events: [], finish: "toolCalls"});
    });

    it("Nemo: a second call opens with the separator, without another section marker", () => {
        const shaper = mistral(mistralSyntax, "required");
        expect(shaper.opening.tokens).toEqual(grammars.tokenize("[TOOL_CALLS][{\"name\": \""));
        shaper.push("get_time\", \"arguments\": ", plenty);
        shaper.push("{}", plenty);
        expect(shaper.push(", ", plenty)).toEqual({events: [], forced: [...grammars.tokenize("{\"name\":"), ...grammars.tokenize(" \"")]});
        expect(shaper.push("get_weather\", \"arguments\": ", plenty).events).toEqual([{type: "toolCall", index: 1, name: "get_weather"}]);
    });

    it("Ministral 3: each call opens with [TOOL_CALLS], and [ARGS] ends its name", () => {
        const shaper = mistral(ministralSyntax, "auto");
        expect(shaper.push("[TOOL_CALLS]", plenty)).toEqual({events: [], forced: []});
        expect(shaper.grammar()).toEqual({grammar: "literal", choices: ["get_weather", "get_time"], suffix: "[ARGS]", optional: false});
        expect(shaper.push("get_w", plenty)).toEqual({events: [{type: "toolCall", index: 0, name: "get_weather"}], forced: grammars.tokenize("eather[ARGS]")});
        expect(shaper.push("{}", plenty).forced).toEqual([]);
        expect(shaper.grammar()).toEqual({grammar: "literal", choices: ["[TOOL_CALLS]"], suffix: "", optional: true});
        expect(shaper.push("[TOOL_CALLS]", plenty)).toEqual({events: [], forced: []});
        expect(shaper.push("get_time[ARGS]", plenty).events).toEqual([{type: "toolCall", index: 1, name: "get_time"}]);
        expect(shaper.end("")).toEqual({events: [], finish: "toolCalls"});
    });

    it("none: the section marker is never sampled", () => {
        expect(mistral(mistralSyntax, "none").tokenBias(plenty)).toEqual({bias: "ban", text: "[TOOL_CALLS]"});
    });

    it("Ministral 3, a named tool: the forced [ARGS] after the name is the marker token, not its letters", () => {
        const shaper = mistral(ministralSyntax, {name: "get_time"});
        expect(shaper.opening.tokens).toEqual([toolCallsToken, ...grammars.tokenize(LlamaText("get_time")), argsToken]);
    });
});

/** Functionary v3.2: the generation prompt ends with `>>>`, so the reply begins with its recipient, a tool's name or `all`. */
describe("ToolCallReply where the prompt opens the reply with the call's prefix", () => {
    const functionary: ToolCallSyntax = {
        sectionPrefix: LlamaText(""), sectionSuffix: LlamaText(""), prefix: LlamaText(">>>"), paramsPrefix: "\n", suffix: LlamaText(""),
        betweenCalls: LlamaText(""), opensReply: true
    };
    const shaper = (choice: "auto" | "required" | {type: "function", name: string}) =>
        new ToolCallReply(grammars, functionary, {type: "toolCalls", tools: [weather, time], choice, parallel: true}, []);

    it("a tool's name on the first line opens its call; the arguments follow", () => {
        const reply = shaper("auto");
        expect(reply.push("get_w", plenty)).toEqual({events: []});
        expect(reply.push("eather\n{\"city\": ", plenty).events).toEqual([
            {type: "toolCall", index: 0, name: "get_weather"}, {type: "toolArguments", index: 0, text: "{\"city\": "}
        ]);
    });

    it("`all` on the first line is the answer: its text follows, and a later >>> opens a call", () => {
        const reply = shaper("auto");
        expect(reply.push("all\nSure, ", plenty)).toEqual({events: [{type: "text", text: "Sure, "}]});
        expect(reply.push("checking.>>>", plenty)).toMatchObject({events: [{type: "text", text: "checking."}]});
        expect(reply.grammar()).toMatchObject({grammar: "literal", choices: ["get_weather", "get_time"], suffix: "\n"});
    });

    it("a first line that names nothing is text as written", () => {
        const reply = shaper("auto");
        expect(reply.push("Hello\nthere", plenty)).toEqual({events: [{type: "text", text: "Hello\nthere"}]});
    });

    it("a forced call does not write the prefix the prompt has written", () => {
        expect(shaper("required").opening.tokens).toEqual([]);
        expect(shaper({type: "function", name: "get_time"}).opening.tokens).toEqual(grammars.tokenize("get_time\n"));
    });
});
