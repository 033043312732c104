import {Template} from "@huggingface/jinja";
import {LlamaText, SpecialTokensText, type ChatWrapper, type LlamaModel, type Token} from "node-llama-cpp";
import type {JinjaChatTemplate} from "./template/jinjaChatTemplate.js";
import {templateThoughtMarkup} from "./template/templateThought.js";

/** How a reasoning model marks its thought, and whether its template opens one in every reply. */
export type ThoughtSyntax = {
    /** The markers' text, trimmed (`<think>`, `</think>`): what a reply spells out. */
    open: string,
    close: string,
    /** The markers' own tokens. */
    openToken: Token,
    closeToken: Token,
    /** The opening as the template writes it (`<think>\n`). */
    opening: Token[],
    /** An empty thought as templates write one when the model is not to think (`<think>\n\n</think>\n\n`). */
    emptyThought: Token[],
    /** The template's generation prompt ends inside an open thought (QwQ's, DeepSeek R1's `<think>\n`). */
    opensEveryReply: boolean,
    /** The markers are special tokens, which detokenize to nothing (Command R7B's `<|START_THINKING|>`). */
    hiddenMarkers: boolean
};

const known = new WeakMap<ChatWrapper, ThoughtSyntax | null>();

/**
 * The thought syntax of a reasoning model (node-llama-cpp reads the markers from the template or
 * the vocabulary: `<think>`, `[THINK]` …), worked out once per chat wrapper. Reasoning models have
 * each marker as one token of their vocabulary; a template that merely declares them
 * (node-llama-cpp's Qwen wrapper does for Qwen2.5 too) is not a reasoning model's. Markers that
 * are special tokens (Command R7B's `<|START_THINKING|>`) detokenize to nothing: the reply's shaper
 * is shown their text (reply/thoughtReply.ts).
 */
export function thoughtSyntax(model: LlamaModel, chatWrapper: ChatWrapper): ThoughtSyntax | undefined {
    if (!known.has(chatWrapper))
        known.set(chatWrapper, readThoughtSyntax(model, chatWrapper) ?? null);
    return known.get(chatWrapper) ?? undefined;
}

function readThoughtSyntax(model: LlamaModel, chatWrapper: ChatWrapper): ThoughtSyntax | undefined {
    const thought = chatWrapper.settings.segments?.thought;
    const {prefix, suffix} = thought ?? {};
    if (!LlamaText.isLlamaText(prefix) || !LlamaText.isLlamaText(suffix))
        return undefined;
    return syntaxOf(model, prefix, suffix, (open) => thought?.openOnResponseStart === true || generationPromptOpens(model, open));
}

const fromTemplates = new WeakMap<JinjaChatTemplate, ThoughtSyntax | null>();

/**
 * The thought syntax the model's own template writes (template/templateThought.ts: Qwen3's
 * `<think>`, Magistral's `[THINK]`, Command R7B's `<|START_THINKING|>`), worked out once per
 * template; undefined where it writes none, and node-llama-cpp's reading (above) is asked then.
 */
export function templateThoughtSyntax(model: LlamaModel, template: JinjaChatTemplate): ThoughtSyntax | undefined {
    if (!fromTemplates.has(template)) {
        const markup = templateThoughtMarkup(template);
        const opens = (open: string) => {
            try {
                return template.render({messages: [{role: "user", content: "Hi"}], thinking: true}).trimEnd().endsWith(open);
            } catch {
                return false;
            }
        };
        const syntax = markup == null
            ? undefined
            : syntaxOf(model, LlamaText(new SpecialTokensText(markup.opening)), LlamaText(new SpecialTokensText(markup.closing)), opens);
        fromTemplates.set(template, syntax ?? null);
    }
    return fromTemplates.get(template) ?? undefined;
}

function syntaxOf(model: LlamaModel, prefix: LlamaText, suffix: LlamaText, opensEveryReply: (open: string) => boolean): ThoughtSyntax | undefined {
    const open = markerToken(model, prefix);
    const close = markerToken(model, suffix);
    if (open == null || close == null)
        return undefined;
    // The answer follows an empty line, where the template's closing marker has none of its own.
    const gap = /\n\s*$/.test(suffix.toString()) ? "" : "\n\n";
    return {
        open: open.text,
        close: close.text,
        openToken: open.token,
        closeToken: close.token,
        opening: prefix.tokenize(model.tokenizer, "trimLeadingSpace"),
        emptyThought: LlamaText([prefix, suffix, gap]).tokenize(model.tokenizer, "trimLeadingSpace"),
        opensEveryReply: opensEveryReply(open.text),
        hiddenMarkers: model.detokenize([open.token], false) === "" || model.detokenize([close.token], false) === ""
    };
}

/** A marker's text, trimmed, and its token, when the vocabulary has it as one token. */
function markerToken(model: LlamaModel, marker: LlamaText): {text: string, token: Token} | undefined {
    const text = marker.toString().trim();
    const tokens = model.tokenize(text, true);
    return tokens.length === 1 && model.detokenize(tokens, true) === text ? {text, token: tokens[0]!} : undefined;
}

/**
 * Whether the GGUF's own template ends its generation prompt with the opening marker. node-llama-cpp
 * renders the reply's turn as a message rather than as the generation prompt, which leaves that
 * marker out, and the model, trained to start inside the thought, would then write it unmarked.
 */
function generationPromptOpens(model: LlamaModel, open: string): boolean {
    const source = model.fileInfo.metadata.tokenizer?.chat_template;
    if (typeof source !== "string")
        return false;
    try {
        const template = new Template(source);
        // Thinking on, as chatserve's requests are unless they say otherwise (Qwen3's and DeepSeek V3.1's variables).
        const render = (addGenerationPrompt: boolean) => template.render({
            messages: [{role: "user", content: "Hi"}], add_generation_prompt: addGenerationPrompt, bos_token: "", eos_token: "",
            enable_thinking: true, thinking: true
        });
        const conversation = render(false);
        const withOpening = render(true);
        return withOpening.startsWith(conversation) && withOpening.slice(conversation.length).trimEnd().endsWith(open);
    } catch {
        // A template this renderer cannot run: node-llama-cpp's reading stands.
        return false;
    }
}
