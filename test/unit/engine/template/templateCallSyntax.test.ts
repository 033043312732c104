import {describe, expect, it} from "vitest";
import {JinjaChatTemplate} from "../../../../src/engine/template/jinjaChatTemplate.js";
import {deriveCallSyntax, type TemplateTokenizer} from "../../../../src/engine/template/templateCallSyntax.js";
import {firstCallIndex} from "../../../../src/engine/template/callIndex.js";
import {CHATML_TEMPLATE, CHATML_TOOLS_TEMPLATE, MINISTRAL_3_TEMPLATE, MISTRAL_NEMO_TEMPLATE} from "../../../fixtures/gguf/chatTemplates.js";
import {familyTemplate, markerTokenizer, templateMarkers} from "../../../fixtures/templates/familyTemplates.js";

const tokens = {bos: "<s>", eos: "</s>", addBos: true, addEos: false};

/** A vocabulary whose markup is tokens of its own (as a family's GGUF has them) and whose text is one token a character. */
const tokenizer: TemplateTokenizer = markerTokenizer(["<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|im_start|>", "<|im_end|>",
    "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[THINK]", "[/THINK]", "<s>", "</s>"]);

/** Llama 3.x's way of writing one call per message: JSON with "parameters". */
const llama3Like = "{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n{% if m.tool_calls %}" +
    "{% if m.tool_calls | length != 1 %}{{ raise_exception('This model only supports single tool-calls at once!') }}{% endif %}" +
    "{% set c = m.tool_calls[0].function %}{\"name\": \"{{ c.name }}\", \"parameters\": {{ c.arguments | tojson }}}" +
    "{% else %}{{ m.content }}{% endif %}<|eot_id|>{% endfor %}";

/** Per-argument XML (Qwen3-Coder's way): not one JSON object. */
const perArgument = "{% for m in messages %}{{ m.content }}{% for c in m.tool_calls or [] %}<tool_call><function={{ c.function.name }}>" +
    "{% for k, v in c.function.arguments.items() %}<parameter={{ k }}>{{ v }}</parameter>{% endfor %}</function></tool_call>{% endfor %}<|im_end|>{% endfor %}";

describe("a tool call's syntax, read from what the model's own template writes for one", () => {
    it("Hermes / Qwen: <tool_call> JSON with name and arguments, a line between calls", () => {
        expect(deriveCallSyntax(new JinjaChatTemplate(CHATML_TOOLS_TEMPLATE, tokens), tokenizer)).toEqual({
            sectionPrefix: "", prefix: "<tool_call>\n{\"name\": \"", paramsPrefix: "\", \"arguments\": ", suffix: "}\n</tool_call>", sectionSuffix: "", betweenCalls: "\n"
        });
    });

    it("Llama 3: JSON with parameters, one call per message", () => {
        expect(deriveCallSyntax(new JinjaChatTemplate(llama3Like, tokens), tokenizer)).toEqual({
            sectionPrefix: "", prefix: "{\"name\": \"", paramsPrefix: "\", \"parameters\": ", suffix: "}", sectionSuffix: "", betweenCalls: null
        });
    });

    it("Mistral Nemo: a section of calls in brackets after [TOOL_CALLS], each with the id the template writes", () => {
        const syntax = deriveCallSyntax(new JinjaChatTemplate(MISTRAL_NEMO_TEMPLATE, tokens), tokenizer);
        expect(syntax).toMatchObject({sectionPrefix: "[TOOL_CALLS][", prefix: "{\"name\": \"", paramsPrefix: "\", \"arguments\": ", betweenCalls: ", "});
        expect(syntax!.suffix).toMatch(/^, "id": "call0000\d"\}$/);
    });

    it("Ministral 3 / Devstral: [TOOL_CALLS]name[ARGS]{…} for every call", () => {
        expect(deriveCallSyntax(new JinjaChatTemplate(MINISTRAL_3_TEMPLATE, tokens), tokenizer)).toMatchObject({prefix: "[TOOL_CALLS]", paramsPrefix: "[ARGS]", suffix: ""});
    });

    it("none where the template writes no call, or writes each argument on its own", () => {
        expect(deriveCallSyntax(new JinjaChatTemplate(CHATML_TEMPLATE, tokens), tokenizer)).toBeNull();
        expect(deriveCallSyntax(new JinjaChatTemplate(perArgument, tokens), tokenizer)).toBeNull();
    });
});

describe("a call's index, where the template numbers its calls (Kimi K2's functions.NAME:0)", () => {
    const kimi = (name: string) => {
        const source = familyTemplate(name);
        return deriveCallSyntax(new JinjaChatTemplate(source, {bos: "", eos: "<|im_end|>", addBos: false, addEos: false}), markerTokenizer(templateMarkers(source)));
    };

    it("Kimi K2: from 0 in every reply (loop.index0); the digit's place in the params prefix", () => {
        expect(kimi("moonshotai-Kimi-K2")).toEqual({
            sectionPrefix: "<|tool_calls_section_begin|>", prefix: "<|tool_call_begin|>functions.", paramsPrefix: ":0<|tool_call_argument_begin|>",
            suffix: "<|tool_call_end|>", sectionSuffix: "<|tool_calls_section_end|>", betweenCalls: "", callIndex: {at: 1, counts: "reply", idHead: "functions."}
        });
    });

    it("Kimi K2 Instruct: on through the conversation (a counter every earlier call moves on)", () => {
        expect(kimi("Kimi-K2-Instruct")).toMatchObject({paramsPrefix: ":0<|tool_call_argument_begin|>", callIndex: {at: 1, counts: "conversation"}});
    });

    it("a later reply's first call goes on from the history's calls, which Kimi K2 Instruct renders numbered and answered by those ids", () => {
        const calls = [{type: "function" as const, function: {name: "get_weather", arguments: "{\"city\": \"Paris\"}"}, id: "call_a"},
            {type: "function" as const, function: {name: "get_time", arguments: "{}"}, id: "call_b"}];
        const messages = [{role: "user" as const, content: "Weather and time?"}, {role: "assistant" as const, content: "", tool_calls: calls},
            {role: "tool" as const, content: "sunny", tool_call_id: "call_a"}, {role: "tool" as const, content: "noon", tool_call_id: "call_b"}];
        const source = familyTemplate("Kimi-K2-Instruct");
        const text = new JinjaChatTemplate(source, {bos: "", eos: "<|im_end|>", addBos: false, addEos: false}).render({messages, thinking: true});
        expect(text).toContain("functions.get_weather:0<|tool_call_argument_begin|>");
        expect(text).toContain("functions.get_time:1<|tool_call_argument_begin|>");
        expect(text).toContain("## Return of functions.get_time:1");
        expect(firstCallIndex("conversation", messages)).toBe(2);
        expect(firstCallIndex("reply", messages)).toBe(0);
    });

    it("no index where the params prefix is the same for every call", () => {
        expect(deriveCallSyntax(new JinjaChatTemplate(CHATML_TOOLS_TEMPLATE, tokens), tokenizer)).not.toHaveProperty("callIndex");
    });
});
