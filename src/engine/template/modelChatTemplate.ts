import type {LlamaModel} from "node-llama-cpp";
import {TemplateDeadlineError} from "../templateDeadline.js";
import {JinjaChatTemplate, type TemplateTokens} from "./jinjaChatTemplate.js";

/**
 * A model's Jinja chat templates, chosen as llama-server chooses them: chatserve.json's template
 * over the GGUF's; the GGUF's `tokenizer.chat_template.tool_use` variant (Hermes 2 Pro and 3,
 * Command R+) for requests with tools; that variant for everything where the plain one is missing.
 * Null: the model has no template (chatserve then uses node-llama-cpp's general one), or it cannot
 * be parsed, which `parseError` says, for the log.
 */
export type ModelChatTemplates = {plain: JinjaChatTemplate, toolUse: JinjaChatTemplate | null};

export function loadModelChatTemplates(model: LlamaModel, override?: string): {templates: ModelChatTemplates | null, parseError?: string} {
    const metadata = model.fileInfo.metadata.tokenizer as Record<string, unknown> | undefined;
    const own = typeof metadata?.chat_template === "string" && metadata.chat_template !== "" ? metadata.chat_template : undefined;
    const toolUse = typeof metadata?.["chat_template.tool_use"] === "string" ? metadata["chat_template.tool_use"] : undefined;
    const plainSource = override ?? own ?? toolUse;
    if (plainSource == null)
        return {templates: null};
    const tokens: TemplateTokens = {
        bos: model.tokens.bosString ?? "", eos: model.tokens.eosString ?? "",
        addBos: model.tokens.shouldPrependBosToken, addEos: model.tokens.shouldAppendEosToken
    };
    try {
        const plain = new JinjaChatTemplate(patched(plainSource), tokens);
        const toolUseTemplate = override == null && toolUse != null && toolUse !== plainSource ? new JinjaChatTemplate(patched(toolUse), tokens) : null;
        return {templates: {plain, toolUse: toolUseTemplate}};
    } catch (error) {
        return {templates: null, parseError: error instanceof Error ? error.message : String(error)};
    }
}

/**
 * Two official templates refuse conversations their own models produce; llama.cpp switches off the
 * same two checks: GPT-OSS's refusal of a message holding channel markup, and Mistral's of an
 * assistant message with neither content nor calls.
 */
function patched(source: string): string {
    let text = source;
    if (text.includes("<|channel|>"))
        text = text.replaceAll(
            "{%- if \"<|channel|>analysis<|message|>\" in message.content or \"<|channel|>final<|message|>\" in message.content %}", "{%- if false %}");
    if (text.includes("[TOOL_CALLS]"))
        text = text.replaceAll(
            "{%- if (message['content'] is none or message['content'] == '' or message['content']|length == 0) and " +
            "(message['tool_calls'] is not defined or message['tool_calls'] is none or message['tool_calls']|length == 0) %}", "{%- if false %}");
    return text;
}

/**
 * Throws the time bound's error where a template cannot render one short question within it (a
 * loop that never ends, whatever the conversation): the model is unavailable, saying why, rather
 * than loaded to time out on every request. Other refusals are the request's to hear.
 */
export function checkTemplatesFinish(templates: ModelChatTemplates): void {
    for (const template of [templates.plain, templates.toolUse]) {
        try {
            template?.render({messages: [{role: "user", content: "Hi"}], thinking: true});
        } catch (error) {
            if (error instanceof TemplateDeadlineError)
                throw error;
        }
    }
}
