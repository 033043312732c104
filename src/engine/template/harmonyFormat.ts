import type {JinjaChatTemplate} from "./jinjaChatTemplate.js";
import {generationPrompt} from "./templateCallSyntax.js";

const found = new WeakMap<JinjaChatTemplate, boolean>();

/**
 * Whether the template is OpenAI's Harmony format (GPT-OSS): a reply opens after
 * `<|start|>assistant` with a channel header of the model's choosing (`<|channel|>analysis`,
 * `<|channel|>final`, a call's ` to=functions.NAME`), which reply/harmonyReply.ts reads.
 */
export function writesHarmony(template: JinjaChatTemplate): boolean {
    if (!found.has(template))
        found.set(template, template.source.includes("<|channel|>") && generationPrompt(template)?.trimEnd().endsWith("<|start|>assistant") === true);
    return found.get(template)!;
}
