import {LlamaText, type ChatHistoryItem, type ChatModelFunctions, type ChatWrapper, type LlamaModel, type Token} from "node-llama-cpp";
import type {PreparedPrompt, ThoughtMarkers, ToolCallSyntax, ToolDefinition} from "./types.js";

/**
 * Renders a conversation with the model's own chat template (node-llama-cpp's wrapper for it:
 * a specialised one, the GGUF's Jinja template, or a general fallback for models without one)
 * and tokenizes it. The template's end markers become stop tokens or stop strings. With tools, the
 * template documents them, and the prompt carries the template's syntax for a call.
 */
export function renderChatPrompt(
    model: LlamaModel,
    chatWrapper: ChatWrapper,
    history: readonly ChatHistoryItem[],
    tools: readonly ToolDefinition[] = []
): PreparedPrompt {
    // An empty model turn at the end asks the template for the assistant's opening; a client that
    // ends with its own assistant text gets that text continued instead.
    const continuesReply = history.at(-1)?.type === "model";
    const chatHistory: ChatHistoryItem[] = continuesReply ? [...history] : [...history, {type: "model", response: []}];

    const availableFunctions: ChatModelFunctions | undefined = tools.length === 0
        ? undefined
        : Object.fromEntries(tools.map((tool) => [tool.name, {description: tool.description, params: tool.parameters}]));
    const {contextText, stopGenerationTriggers} = chatWrapper.generateContextState({chatHistory, availableFunctions, documentFunctionParams: true});
    const stopTokens: Token[] = [];
    const stopStrings: string[] = [];
    for (const trigger of stopGenerationTriggers) {
        if (isPlainText(trigger)) {
            stopStrings.push(trigger.toString());
            continue;
        }
        const tokens = trigger.tokenize(model.tokenizer, "trimLeadingSpace");
        if (tokens.length === 1)
            stopTokens.push(tokens[0]!);
    }

    const thought = thoughtMarkers(model, chatWrapper, contextText, !continuesReply);
    return {
        tokens: contextText.tokenize(model.tokenizer),
        stopTokens,
        stopStrings,
        ...(tools.length > 0 ? {toolSyntax: toolCallSyntax(chatWrapper)} : {}),
        ...(thought == null ? {} : {thought})
    };
}

/**
 * The thought markers of a reasoning model (node-llama-cpp reads them from the template or the
 * vocabulary: `<think>`, `[THINK]` …), as text. Reasoning models have each marker as one token of
 * their vocabulary; a template that merely declares them (node-llama-cpp's Qwen wrapper does for
 * Qwen2.5 too) is not a reasoning model's. Markers that are special tokens detokenize to nothing,
 * so a reply could never be split on them: those are left alone.
 *
 * Templates that open the thought in the assistant's opening (Qwen3's as node-llama-cpp reads it,
 * DeepSeek R1's newer ones) are rendered without it; node-llama-cpp's own chat writes it before
 * the model's first token, and so does chatserve, as the reply's forced opening.
 */
function thoughtMarkers(model: LlamaModel, chatWrapper: ChatWrapper, prompt: LlamaText, newReply: boolean): ThoughtMarkers | undefined {
    const {prefix, suffix, openOnResponseStart} = chatWrapper.settings.segments?.thought ?? {};
    if (!LlamaText.isLlamaText(prefix) || !LlamaText.isLlamaText(suffix))
        return undefined;
    const open = thoughtToken(model, prefix);
    const close = thoughtToken(model, suffix);
    if (open == null || close == null)
        return undefined;
    const tokens = (text: LlamaText) => newReply ? text.tokenize(model.tokenizer, "trimLeadingSpace") : [];
    return {
        open,
        close,
        opened: prompt.toString().trimEnd().endsWith(open),
        opening: openOnResponseStart === true ? tokens(prefix) : [],
        emptyThought: tokens(LlamaText([prefix, suffix]))
    };
}

function toolCallSyntax(chatWrapper: ChatWrapper): ToolCallSyntax {
    const {call, parallelism} = chatWrapper.settings.functions;
    return {
        prefix: LlamaText(call.prefix),
        paramsPrefix: LlamaText(call.paramsPrefix).toString(),
        suffix: LlamaText(call.suffix),
        betweenCalls: parallelism == null ? null : LlamaText(parallelism.call.betweenCalls ?? "")
    };
}

function isPlainText(text: LlamaText): boolean {
    return text.values.every((value) => typeof value === "string");
}

/** A marker's text, trimmed, when the vocabulary has it as one token that a reply spells out. */
function thoughtToken(model: LlamaModel, marker: LlamaText): string | undefined {
    const text = marker.toString().trim();
    const tokens = model.tokenize(text, true);
    return tokens.length === 1 && model.detokenize(tokens, false) === text ? text : undefined;
}
