import fs from "node:fs/promises";
import {describe, expect, it} from "vitest";
import {templateThinks} from "../../../src/models/templateThinking.js";
import {CHATML_REASONING_TEMPLATE, CHATML_TEMPLATE, CHATML_TOOLS_TEMPLATE} from "../../fixtures/gguf/chatTemplates.js";

const officialTemplate = (name: string) => fs.readFile(new URL(`../../fixtures/templates/${name}.jinja`, import.meta.url), "utf8");

describe("templateThinks", () => {
    it("finds thinking in templates that write thoughts or open one at the generation prompt", async () => {
        // Qwen3's official one: earlier thoughts in <think>…</think>, enable_thinking at the prompt.
        expect(templateThinks(await officialTemplate("Qwen-Qwen3-0.6B"))).toBe(true);
        expect(templateThinks(await officialTemplate("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B"))).toBe(true);
        expect(templateThinks(CHATML_REASONING_TEMPLATE)).toBe(true);
    });

    it("finds none in plain chat templates, tool-calling ones included", async () => {
        expect(templateThinks(CHATML_TEMPLATE)).toBe(false);
        expect(templateThinks(CHATML_TOOLS_TEMPLATE)).toBe(false);
        expect(templateThinks(await officialTemplate("meta-llama-Llama-3.1-8B-Instruct"))).toBe(false);
    });

    it("takes a template that does not parse or render, or no template, as one without thinking", () => {
        expect(templateThinks("{% for message in messages %}{{ message.content }")).toBe(false);
        expect(templateThinks("{{ raise_exception('no') }}")).toBe(false);
        expect(templateThinks("")).toBe(false);
        expect(templateThinks(undefined)).toBe(false);
        expect(templateThinks(42)).toBe(false);
    });
});
