import {LlamaText, type ChatHistoryItem, type ChatModelFunctions, type ChatWrapper, type LlamaModel, type Token} from "node-llama-cpp";
import type {PreparedPrompt, ToolCallSyntax, ToolDefinition} from "./types.js";

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
    const chatHistory: ChatHistoryItem[] = history.at(-1)?.type === "model"
        ? [...history]
        : [...history, {type: "model", response: []}];

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

    return {
        tokens: contextText.tokenize(model.tokenizer),
        stopTokens,
        stopStrings,
        ...(tools.length > 0 ? {toolSyntax: toolCallSyntax(chatWrapper)} : {})
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
