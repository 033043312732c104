import {JinjaChatTemplate} from "../engine/template/jinjaChatTemplate.js";

/**
 * Whether a model thinks, read from its chat template at scan time (clients such as Zed read
 * `thinking` in /api/show's capabilities to offer a reasoning toggle). The template is the one
 * place that says so before a load: it writes an earlier thought between markers, or its
 * `enable_thinking` switch opens a thought at the generation prompt (templateReasoning.ts, the
 * same test the engine applies once loaded). The special tokens do not change that answer, so
 * the template is built from its text alone. A template that fails to parse or render is no
 * reason to mark the model unavailable: it simply does not think.
 */
export function templateThinks(template: unknown): boolean {
    if (typeof template !== "string" || template === "")
        return false;
    try {
        return new JinjaChatTemplate(template, {bos: "", eos: "", addBos: false, addEos: false}).hasThought;
    } catch {
        return false;
    }
}
