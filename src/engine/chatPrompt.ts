import type {ChatHistoryItem, ChatWrapper, LlamaModel, LlamaText, Token} from "node-llama-cpp";
import type {PreparedPrompt} from "./types.js";

/**
 * Renders a conversation with the model's own chat template (node-llama-cpp's wrapper for it:
 * a specialised one, the GGUF's Jinja template, or a general fallback for models without one)
 * and tokenizes it. The template's end markers become stop tokens or stop strings.
 */
export function renderChatPrompt(model: LlamaModel, chatWrapper: ChatWrapper, history: readonly ChatHistoryItem[]): PreparedPrompt {
    // An empty model turn at the end asks the template for the assistant's opening; a client that
    // ends with its own assistant text gets that text continued instead.
    const chatHistory: ChatHistoryItem[] = history.at(-1)?.type === "model"
        ? [...history]
        : [...history, {type: "model", response: []}];

    const {contextText, stopGenerationTriggers} = chatWrapper.generateContextState({chatHistory});
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

    return {tokens: contextText.tokenize(model.tokenizer), stopTokens, stopStrings};
}

function isPlainText(text: LlamaText): boolean {
    return text.values.every((value) => typeof value === "string");
}
