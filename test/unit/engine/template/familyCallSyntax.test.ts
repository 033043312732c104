import {describe, expect, it} from "vitest";
import {JinjaChatTemplate} from "../../../../src/engine/template/jinjaChatTemplate.js";
import {deriveCallSyntax, type CallSyntaxText} from "../../../../src/engine/template/templateCallSyntax.js";
import {familyTemplate, markerTokenizer, templateMarkers, type FamilyTemplateName} from "../../../fixtures/templates/familyTemplates.js";

function derived(name: FamilyTemplateName): CallSyntaxText | null {
    const source = familyTemplate(name);
    return deriveCallSyntax(new JinjaChatTemplate(source, {bos: "<s>", eos: "</s>", addBos: true, addEos: false}), markerTokenizer(templateMarkers(source)));
}

/**
 * Each family's call as its own template writes it (and so as its models write one), from the
 * official templates; llama.cpp's common/parsers and tests/test-chat.cpp say the same of each.
 */
describe("each family's own tool-call syntax, read from its official template", () => {
    const json = (prefix: string, paramsPrefix: string, suffix: string, more: Partial<CallSyntaxText> = {}) =>
        ({sectionPrefix: "", prefix, paramsPrefix, suffix, sectionSuffix: "", betweenCalls: null, ...more});

    it.each<[FamilyTemplateName, Partial<CallSyntaxText>]>([
        ["Qwen-Qwen3-0.6B", json("<tool_call>\n{\"name\": \"", "\", \"arguments\": ", "}\n</tool_call>", {betweenCalls: "\n"})],
        ["NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", json("<tool_call>\n{\"name\": \"", "\", \"arguments\": ", "}\n</tool_call>", {betweenCalls: "\n"})],
        ["meta-llama-Llama-3.1-8B-Instruct", json("{\"name\": \"", "\", \"parameters\": ", "}")],
        ["unsloth-mistral-Devstral-Small-2507", {prefix: "[TOOL_CALLS]", paramsPrefix: "[ARGS]", suffix: ""}],
        ["Mistral-Small-3.2-24B-Instruct-2506", {prefix: "[TOOL_CALLS]", suffix: ""}],
        ["mistralai-Mistral-Nemo-Instruct-2407", {sectionPrefix: "[TOOL_CALLS][", prefix: "{\"name\": \"", paramsPrefix: "\", \"arguments\": ", betweenCalls: ", "}],
        ["deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", {
            sectionPrefix: "<｜tool▁calls▁begin｜>", prefix: "<｜tool▁call▁begin｜>function<｜tool▁sep｜>", paramsPrefix: "\n```json\n",
            suffix: "\n```<｜tool▁call▁end｜>"
        }],
        ["deepseek-ai-DeepSeek-V3.1", {sectionPrefix: "<｜tool▁calls▁begin｜>", prefix: "<｜tool▁call▁begin｜>", paramsPrefix: "<｜tool▁sep｜>", suffix: "<｜tool▁call▁end｜>"}],
        ["ibm-granite-granite-4.0", {prefix: "<tool_call>\n{\"name\": \"", paramsPrefix: "\", \"arguments\": ", suffix: "}\n</tool_call>"}],
        ["moonshotai-Kimi-K2", {sectionPrefix: "<|tool_calls_section_begin|>", prefix: "<|tool_call_begin|>functions.", suffix: "<|tool_call_end|>"}],
        ["CohereForAI-c4ai-command-r7b-12-2024-tool_use", {paramsPrefix: "\", \"parameters\": "}]
    ])("%s", (name, expected) => {
        expect(derived(name)).toMatchObject(expected);
    });

    it("Mistral Small 3.2 writes the call's id between its name and arguments", () => {
        expect(derived("Mistral-Small-3.2-24B-Instruct-2506")!.paramsPrefix).toMatch(/^\[CALL_ID\].+\[ARGS\]$/);
    });
});
