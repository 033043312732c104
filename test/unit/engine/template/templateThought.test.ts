import {describe, expect, it} from "vitest";
import {JinjaChatTemplate} from "../../../../src/engine/template/jinjaChatTemplate.js";
import {templateThoughtMarkup} from "../../../../src/engine/template/templateThought.js";
import {CHATML_REASONING_TEMPLATE, CHATML_TOOLS_TEMPLATE} from "../../../fixtures/gguf/chatTemplates.js";
import {familyTemplate} from "../../../fixtures/templates/familyTemplates.js";

const tokens = {bos: "<s>", eos: "</s>", addBos: true, addEos: false};
const markup = (source: string) => templateThoughtMarkup(new JinjaChatTemplate(source, tokens));

describe("a thought's markers, as the model's own template writes an earlier one", () => {
    it("Qwen3 and a ChatML reasoning template: <think>, with the layout around it", () => {
        expect(markup(familyTemplate("Qwen-Qwen3-0.6B"))).toEqual({opening: "<think>\n", closing: "\n</think>\n\n"});
        expect(markup(CHATML_REASONING_TEMPLATE)).toEqual({opening: "<think>\n", closing: "\n</think>\n\n"});
    });

    it("Magistral-style square markers", () => {
        const source = "{% for m in messages %}[{{ m.role }}]{% if m.reasoning_content %}[THINK]{{ m.reasoning_content }}[/THINK]{% endif %}{{ m.content }}{% endfor %}";
        expect(markup(source)).toEqual({opening: "[THINK]", closing: "[/THINK]"});
    });

    it("none where the template writes no earlier thought", () => {
        expect(markup(CHATML_TOOLS_TEMPLATE)).toBeNull();
    });
});
