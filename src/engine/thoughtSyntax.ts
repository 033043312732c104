import {Template} from "@huggingface/jinja";
import {LlamaText, type ChatWrapper, type LlamaModel} from "node-llama-cpp";

/** How a reasoning model marks its thought, and whether its template opens one in every reply. */
export type ThoughtSyntax = {
    /** The markers' text, trimmed (`<think>`, `</think>`): what a reply spells out. */
    open: string,
    close: string,
    /** The markers as the template writes them (`<think>\n`, `\n</think>\n\n`). */
    prefix: LlamaText,
    suffix: LlamaText,
    /** The template's generation prompt ends inside an open thought (QwQ's, DeepSeek R1's `<think>\n`). */
    opensEveryReply: boolean
};

const known = new WeakMap<ChatWrapper, ThoughtSyntax | null>();

/**
 * The thought syntax of a reasoning model (node-llama-cpp reads the markers from the template or
 * the vocabulary: `<think>`, `[THINK]` …), worked out once per chat wrapper. Reasoning models have
 * each marker as one token of their vocabulary; a template that merely declares them
 * (node-llama-cpp's Qwen wrapper does for Qwen2.5 too) is not a reasoning model's. Markers that
 * are special tokens detokenize to nothing, so a reply could never be split on them: those models
 * are left alone.
 */
export function thoughtSyntax(model: LlamaModel, chatWrapper: ChatWrapper): ThoughtSyntax | undefined {
    if (!known.has(chatWrapper))
        known.set(chatWrapper, readThoughtSyntax(model, chatWrapper) ?? null);
    return known.get(chatWrapper) ?? undefined;
}

/**
 * The end of a reasoning model's prompt: a new reply whose template opens a thought begins inside
 * it (node-llama-cpp's own chat writes that opening too); one that must not think begins after an
 * empty thought, as Qwen3's template writes it with `enable_thinking` false. Returns the prompt
 * and whether it ends inside a thought (some templates render the opening themselves).
 */
export function endPromptForThought(
    syntax: ThoughtSyntax, prompt: LlamaText, {newReply, thinking}: {newReply: boolean, thinking: boolean}
): {text: LlamaText, opened: boolean} {
    const opened = prompt.toString().trimEnd().endsWith(syntax.open);
    if (!newReply)
        return {text: prompt, opened};
    if (!thinking) {
        // The answer follows an empty line, where the template's closing marker has none of its own.
        const gap = /\n\s*$/.test(syntax.suffix.toString()) ? "" : "\n\n";
        return {text: LlamaText([prompt, opened ? "" : syntax.prefix, syntax.suffix, gap]), opened: false};
    }
    if (!opened && syntax.opensEveryReply)
        return {text: LlamaText([prompt, syntax.prefix]), opened: true};
    return {text: prompt, opened};
}

function readThoughtSyntax(model: LlamaModel, chatWrapper: ChatWrapper): ThoughtSyntax | undefined {
    const thought = chatWrapper.settings.segments?.thought;
    const {prefix, suffix} = thought ?? {};
    if (!LlamaText.isLlamaText(prefix) || !LlamaText.isLlamaText(suffix))
        return undefined;
    const open = markerToken(model, prefix);
    const close = markerToken(model, suffix);
    if (open == null || close == null)
        return undefined;
    return {open, close, prefix, suffix, opensEveryReply: thought?.openOnResponseStart === true || generationPromptOpens(model, open)};
}

/** A marker's text, trimmed, when the vocabulary has it as one token that a reply spells out. */
function markerToken(model: LlamaModel, marker: LlamaText): string | undefined {
    const text = marker.toString().trim();
    const tokens = model.tokenize(text, true);
    return tokens.length === 1 && model.detokenize(tokens, false) === text ? text : undefined;
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
        const render = (addGenerationPrompt: boolean) => template.render({
            messages: [{role: "user", content: "Hi"}], add_generation_prompt: addGenerationPrompt, bos_token: "", eos_token: ""
        });
        const conversation = render(false);
        const withOpening = render(true);
        return withOpening.startsWith(conversation) && withOpening.slice(conversation.length).trimEnd().endsWith(open);
    } catch {
        // A template this renderer cannot run: node-llama-cpp's reading stands.
        return false;
    }
}
