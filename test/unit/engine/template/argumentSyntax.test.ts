import {describe, expect, it} from "vitest";
import {deriveArgumentSyntax} from "../../../../src/engine/template/argumentSyntax.js";
import {JinjaChatTemplate} from "../../../../src/engine/template/jinjaChatTemplate.js";
import {deriveCallSyntax} from "../../../../src/engine/template/templateCallSyntax.js";
import {familyTemplate, familyTemplateNames, markerTokenizer, templateMarkers} from "../../../fixtures/templates/familyTemplates.js";

const tokens = {bos: "<s>", eos: "</s>", addBos: false, addEos: false};

function derive(name: string) {
    const source = familyTemplate(name);
    // Gemma 4's string quote is a token of its own in its GGUF.
    const tokenizer = markerTokenizer([...templateMarkers(source), "<|\"|>"]);
    const template = new JinjaChatTemplate(source, tokens);
    return {argument: deriveArgumentSyntax(template), json: deriveCallSyntax(template, tokenizer)};
}

const qwenCoder = {
    sectionPrefix: "", prefix: "<tool_call>\n<function=", nameSuffix: ">", keyPrefix: "\n<parameter=", keySuffix: ">\n", stringOpen: "", stringClose: "",
    valueSuffix: "\n</parameter>", separator: "", callSuffix: "\n</function>\n</tool_call>", sectionSuffix: ""
};

describe("per-argument call syntax, read from what the family's own template writes", () => {
    it.each(["Qwen3-Coder", "Qwen3.5-4B", "StepFun3.5-Flash"])("%s: <function=NAME> and a <parameter=KEY> element per argument", (name) => {
        const {argument, json} = derive(name);
        expect(argument).toMatchObject(qwenCoder);
        expect(json).toBeNull();
    });

    it("Nemotron 3 Nano: the same, with a line after each call", () => {
        expect(derive("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").argument).toMatchObject({...qwenCoder, callSuffix: "\n</function>\n</tool_call>\n", betweenCalls: ""});
    });

    it("GLM 4.6 and 4.7: the name after <tool_call>, then <arg_key>/<arg_value> pairs", () => {
        expect(derive("GLM-4.6").argument).toEqual({
            sectionPrefix: "", prefix: "<tool_call>", nameSuffix: "", keyPrefix: "\n<arg_key>", keySuffix: "</arg_key>\n<arg_value>", stringOpen: "", stringClose: "",
            valueSuffix: "</arg_value>", separator: "", callSuffix: "\n</tool_call>", sectionSuffix: "", betweenCalls: "\n"
        });
        expect(derive("GLM-4.7-Flash").argument).toMatchObject({prefix: "<tool_call>", keyPrefix: "<arg_key>", keySuffix: "</arg_key><arg_value>", callSuffix: "</tool_call>"});
    });

    it("MiniMax-M2: <invoke name=…> inside a <minimax:tool_call> section, a <parameter name=…> per argument", () => {
        expect(derive("MiniMax-M2").argument).toEqual({
            sectionPrefix: "<minimax:tool_call>", prefix: "\n<invoke name=\"", nameSuffix: "\">", keyPrefix: "\n<parameter name=\"", keySuffix: "\">",
            stringOpen: "", stringClose: "", valueSuffix: "</parameter>", separator: "", callSuffix: "\n</invoke>", sectionSuffix: "\n</minimax:tool_call>", betweenCalls: ""
        });
    });

    it("Gemma 4: call:NAME{key:value,…} with strings between <|\"|> quotes", () => {
        expect(derive("google-gemma-4-31B-it").argument).toEqual({
            sectionPrefix: "", prefix: "<|tool_call>call:", nameSuffix: "{", keyPrefix: "", keySuffix: ":", stringOpen: "<|\"|>", stringClose: "<|\"|>",
            valueSuffix: "", separator: ",", callSuffix: "}<tool_call|>", sectionSuffix: "<|tool_response>", betweenCalls: ""
        });
    });

    it.each(familyTemplateNames)("none for %s, whose arguments are one JSON object", (name) => {
        expect(derive(name).argument).toBeNull();
    });

    it("none where the markup repeats the key (an element named after each argument, as MiniMax M3 writes)", () => {
        const keyTags = "{% for m in messages %}{{ m.content }}{% for c in m.tool_calls or [] %}<invoke name=\"{{ c.function.name }}\">" +
            "{% for k, v in c.function.arguments.items() %}<{{ k }}>{{ v }}</{{ k }}>{% endfor %}</invoke>{% endfor %}<|im_end|>{% endfor %}";
        expect(deriveArgumentSyntax(new JinjaChatTemplate(keyTags, tokens))).toBeNull();
    });
});
