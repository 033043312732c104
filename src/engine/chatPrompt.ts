import {LlamaText, type ChatHistoryItem, type ChatModelFunctions, type ChatWrapper, type LlamaModel, type Token} from "node-llama-cpp";
import {BadRequestError} from "../errors.js";
import {isImagePlaceholder, tokenizeWithImages} from "./vision/imagePrompt.js";
import type {TokenizedImage} from "./vision/nativeVision.js";
import {endPromptForThought} from "./thoughtPrompt.js";
import {thoughtSyntax} from "./thoughtSyntax.js";
import type {PreparedPrompt, ToolCallSyntax} from "./preparedPrompt.js";
import type {ToolDefinition} from "./generationOptions.js";
// Importing it bounds every Jinja render in the process (templateDeadline.ts).
import {TemplateDeadlineError} from "./templateDeadline.js";

/**
 * Renders a conversation with the model's own chat template (node-llama-cpp's wrapper for it:
 * a specialised one, the GGUF's Jinja template, or a general fallback for models without one)
 * and tokenizes it. The template's end markers become stop tokens or stop strings. With tools, the
 * template documents them, and the prompt carries the template's syntax for a call. A reasoning
 * model's new reply begins inside its thought where the template opens one, or after an empty
 * thought when it must not think (`thinking` false). Images, which the history names by the media
 * marker, take the marker's place in the tokens (engine/vision/imagePrompt.ts).
 */
export function renderChatPrompt(
    model: LlamaModel,
    chatWrapper: ChatWrapper,
    history: readonly ChatHistoryItem[],
    {tools = [], thinking = true, images = [], promptName}:
        {tools?: readonly ToolDefinition[], thinking?: boolean, images?: readonly TokenizedImage[], promptName: string}
): PreparedPrompt {
    // An empty model turn at the end asks the template for the assistant's opening; a client that
    // ends with its own assistant text gets that text continued instead.
    const last = history.at(-1);
    const chatHistory: ChatHistoryItem[] = last?.type === "model" ? [...history] : [...history, {type: "model", response: []}];
    // After a tool's result the template opens a new assistant turn, though the history's last item is that call's model turn.
    const lastResponse = last?.type === "model" ? last.response.at(-1) : undefined;
    const newReply = last?.type !== "model" || (typeof lastResponse === "object" && lastResponse.type === "functionCall");

    const availableFunctions: ChatModelFunctions | undefined = tools.length === 0
        ? undefined
        : Object.fromEntries(tools.map((tool) => [tool.name, {description: tool.description, params: tool.parameters}]));
    const rendered = renderWithTemplate(chatWrapper, chatHistory, availableFunctions, promptName);
    const {stopGenerationTriggers} = rendered;
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

    const syntax = thoughtSyntax(model, chatWrapper);
    const withImages = images.length === 0 ? null : tokenizeWithImages(model, rendered.contextText, images, promptName);
    const renderedTokens = withImages?.tokens ?? rendered.contextText.tokenize(model.tokenizer);
    const continuedReply = newReply || last?.type !== "model" ? "" : last.response.filter((item) => typeof item === "string").join("");
    const {tokens, opened} = syntax == null
        ? {tokens: renderedTokens, opened: false}
        : endPromptForThought(syntax, renderedTokens, (token) => !isImagePlaceholder(token) && model.detokenize([token], true).trim() === "", {newReply, thinking, continuedReply});
    return {
        tokens,
        stopTokens,
        stopStrings,
        ...(tools.length > 0 ? {toolSyntax: toolCallSyntax(chatWrapper)} : {}),
        ...(syntax == null ? {} : {thought: {open: syntax.open, close: syntax.close, opened}}),
        ...(withImages == null ? {} : {images: withImages.images})
    };
}

/**
 * Templates check the conversation they are given and refuse some with `raise_exception` ("roles
 * must alternate", "system role not supported"): the client's messages are the cause, so a 400
 * that passes the template's reason on, as llama-server does, not a 500.
 */
function renderWithTemplate(chatWrapper: ChatWrapper, chatHistory: ChatHistoryItem[], availableFunctions: ChatModelFunctions | undefined, promptName: string) {
    try {
        return chatWrapper.generateContextState({chatHistory, availableFunctions, documentFunctionParams: true});
    } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (error instanceof TemplateDeadlineError)
            throw new BadRequestError(`The model's chat template could not render these messages: ${reason}. The template (the GGUF's, or chat_template in ` +
                "chatserve.json) needs fixing.", {param: promptName, code: "chat_template_timeout"});
        throw new BadRequestError(`The model's chat template refused these messages: ${reason}`, {param: promptName, code: "chat_template_error"});
    }
}

function toolCallSyntax(chatWrapper: ChatWrapper): ToolCallSyntax {
    const {call, parallelism} = chatWrapper.settings.functions;
    return {
        sectionPrefix: LlamaText(parallelism?.call.sectionPrefix ?? ""),
        sectionSuffix: LlamaText(parallelism?.call.sectionSuffix ?? ""),
        prefix: LlamaText(call.prefix),
        paramsPrefix: LlamaText(call.paramsPrefix).toString(),
        suffix: LlamaText(call.suffix),
        betweenCalls: parallelism == null ? null : LlamaText(parallelism.call.betweenCalls ?? "")
    };
}

function isPlainText(text: LlamaText): boolean {
    return text.values.every((value) => typeof value === "string");
}
