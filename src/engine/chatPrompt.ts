import {LlamaText, SpecialTokensText, type ChatHistoryItem, type ChatModelFunctions, type ChatWrapper, type LlamaModel, type Token} from "node-llama-cpp";
import {BadRequestError} from "../errors.js";
import {isImagePlaceholder, tokenizeWithImages} from "./vision/imagePrompt.js";
import {numberedMarker} from "./vision/mediaMarker.js";
import type {TokenizedImage} from "./vision/nativeVision.js";
import {endPromptForThought} from "./thoughtPrompt.js";
import {templateThoughtSyntax, thoughtSyntax} from "./thoughtSyntax.js";
import type {ArgumentCallSyntax, PreparedPrompt, ToolCallSyntax} from "./preparedPrompt.js";
import type {ToolDefinition} from "./generationOptions.js";
import type {JinjaChatTemplate} from "./template/jinjaChatTemplate.js";
import type {ModelChatTemplates} from "./template/modelChatTemplate.js";
import {argumentCallSyntax} from "./template/argumentCallSyntax.js";
import {firstCallIndex} from "./template/callIndex.js";
import {writesHarmony} from "./template/harmonyFormat.js";
import {templateCallSyntax} from "./template/templateCallSyntax.js";
import type {TemplateMessage, TemplateTool} from "./template/templateMessage.js";
// Importing it bounds every Jinja render in the process (templateDeadline.ts).
import {TemplateDeadlineError} from "./templateDeadline.js";

/**
 * Renders a conversation with the model's own chat template and tokenizes it. A model with a Jinja
 * template (the GGUF's, or chatserve.json's) gets exactly what llama-server renders with it
 * (template/jinjaChatTemplate.ts), tokenized whole as llama.cpp tokenizes it; one without gets
 * node-llama-cpp's general template. The template's end of turn becomes a stop token or string.
 * With tools, the template documents them, and the prompt carries the syntax of a call (read from
 * node-llama-cpp's wrapper for the template). A reasoning model's new reply begins inside its
 * thought where the template opens one, or after an empty thought when it must not think
 * (`thinking` false). Images, which the messages name by the media marker, take the marker's place
 * in the tokens (engine/vision/imagePrompt.ts).
 */
export function renderChatPrompt(
    model: LlamaModel,
    chat: {wrapper: ChatWrapper, templates: ModelChatTemplates | null},
    history: readonly ChatHistoryItem[],
    {tools = [], templateMessages, templateTools = [], templateVariables, thinking = true, images = [], promptName}: {
        tools?: readonly ToolDefinition[], templateMessages?: readonly TemplateMessage[], templateTools?: readonly TemplateTool[],
        templateVariables?: Record<string, unknown>,
        thinking?: boolean, images?: readonly TokenizedImage[], promptName: string
    }
): PreparedPrompt {
    // The client's own assistant text at the end is continued; after anything else (a tool's result too) a new reply begins.
    const last = history.at(-1);
    const lastResponse = last?.type === "model" ? last.response.at(-1) : undefined;
    const newReply = last?.type !== "model" || (typeof lastResponse === "object" && lastResponse.type === "functionCall");

    const template = chat.templates == null ? null : tools.length > 0 ? chat.templates.toolUse ?? chat.templates.plain : chat.templates.plain;
    // Harmony's thought is a channel (reply/harmonyReply.ts). Elsewhere the template's own thought
    // markers where it writes an earlier thought, else node-llama-cpp's reading.
    const harmony = template != null && writesHarmony(template);
    const syntax = harmony ? undefined : (template == null ? undefined : templateThoughtSyntax(model, template)) ?? thoughtSyntax(model, chat.wrapper);
    const input = {messages: [...templateMessages ?? []], tools: [...templateTools], thinking, ...(templateVariables == null ? {} : {variables: templateVariables})};
    const rendered = template == null || templateMessages == null
        ? renderWithWrapper(model, chat.wrapper, history, tools, images, promptName)
        : renderWithJinja(model, template, input, newReply, images, promptName);

    const continuedReply = newReply || last?.type !== "model" ? "" : last.response.filter((item) => typeof item === "string").join("");
    const {tokens, opened} = syntax == null
        ? {tokens: rendered.tokens, opened: false}
        : endPromptForThought(syntax, rendered.tokens, (token) => !isImagePlaceholder(token) && model.detokenize([token], true).trim() === "", {newReply, thinking, continuedReply});
    return {
        tokens,
        stopTokens: rendered.stopTokens,
        stopStrings: rendered.stopStrings,
        ...(tools.length > 0 ? {toolSyntax: (template == null ? null : templateToolSyntax(model, template, templateMessages ?? [], syntax)) ?? toolCallSyntax(chat.wrapper)} : {}),
        ...(syntax == null ? {} : {thought: {open: syntax.open, close: syntax.close, opened, tokens: {open: syntax.openToken, close: syntax.closeToken}}}),
        ...(harmony ? {harmony} : {}),
        ...(rendered.images == null ? {} : {images: rendered.images})
    };
}

type RenderedPrompt = Pick<PreparedPrompt, "tokens" | "stopTokens" | "stopStrings" | "images">;

/**
 * The template's text, tokenized whole with its special tokens read as tokens, after the BOS token
 * where the vocabulary asks for one: what llama-server evaluates for the same request.
 */
function renderWithJinja(
    model: LlamaModel, template: JinjaChatTemplate, input: Parameters<JinjaChatTemplate["render"]>[0], newReply: boolean,
    images: readonly TokenizedImage[], promptName: string
): RenderedPrompt {
    const text = withTemplateErrors(() => template.render(input, {continueLast: !newReply}), promptName);
    const bos = model.tokens.shouldPrependBosToken && model.tokens.bos != null ? [model.tokens.bos] : [];
    const withImages = images.length === 0 ? null : tokenizeWithImages(model, LlamaText(splitSpecialText(text)), images, promptName);
    const tokens = [...bos, ...withImages?.tokens ?? model.tokenize(text, true)];
    const stop = template.turnEnd;
    const stopTokens = stop === "" ? [] : model.tokenize(stop, true);
    return {
        tokens,
        stopTokens: stopTokens.length === 1 ? stopTokens : [],
        stopStrings: stop !== "" && stopTokens.length !== 1 ? [stop] : [],
        // Each image's place counts the BOS before it.
        ...(withImages == null ? {} : {images: withImages.images.map((image) => ({...image, start: image.start + bos.length}))})
    };
}

/** Template text as special-token text, with each image's media marker left as plain text for imagePrompt.ts to find. */
function splitSpecialText(text: string): Array<SpecialTokensText | string> {
    const pieces: Array<SpecialTokensText | string> = [];
    let from = 0;
    for (const match of text.matchAll(new RegExp(numberedMarker))) {
        if (match.index > from)
            pieces.push(new SpecialTokensText(text.slice(from, match.index)));
        pieces.push(match[0]);
        from = match.index + match[0].length;
    }
    if (from < text.length)
        pieces.push(new SpecialTokensText(text.slice(from)));
    return pieces;
}

/** node-llama-cpp's wrapper for a model without a Jinja template of its own. */
function renderWithWrapper(
    model: LlamaModel, chatWrapper: ChatWrapper, history: readonly ChatHistoryItem[], tools: readonly ToolDefinition[],
    images: readonly TokenizedImage[], promptName: string
): RenderedPrompt {
    // An empty model turn at the end asks the template for the assistant's opening; a client that
    // ends with its own assistant text gets that text continued instead.
    const chatHistory: ChatHistoryItem[] = history.at(-1)?.type === "model" ? [...history] : [...history, {type: "model", response: []}];
    const availableFunctions: ChatModelFunctions | undefined = tools.length === 0
        ? undefined
        : Object.fromEntries(tools.map((tool) => [tool.name, {description: tool.description, params: tool.parameters}]));
    const rendered = withTemplateErrors(() => chatWrapper.generateContextState({chatHistory, availableFunctions, documentFunctionParams: true}), promptName);
    const stopTokens: Token[] = [];
    const stopStrings: string[] = [];
    for (const trigger of rendered.stopGenerationTriggers) {
        if (isPlainText(trigger)) {
            stopStrings.push(trigger.toString());
            continue;
        }
        const tokens = trigger.tokenize(model.tokenizer, "trimLeadingSpace");
        if (tokens.length === 1)
            stopTokens.push(tokens[0]!);
    }
    const withImages = images.length === 0 ? null : tokenizeWithImages(model, rendered.contextText, images, promptName);
    return {
        tokens: withImages?.tokens ?? rendered.contextText.tokenize(model.tokenizer),
        stopTokens,
        stopStrings,
        ...(withImages == null ? {} : {images: withImages.images})
    };
}

/**
 * Templates check the conversation they are given and refuse some with `raise_exception` ("roles
 * must alternate", "system role not supported"): the client's messages are the cause, so a 400
 * that passes the template's reason on, as llama-server does, not a 500.
 */
function withTemplateErrors<T>(render: () => T, promptName: string): T {
    try {
        return render();
    } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (error instanceof TemplateDeadlineError)
            throw new BadRequestError(`The model's chat template could not render these messages: ${reason}. The template (the GGUF's, or chat_template in ` +
                "chatserve.json) needs fixing.", {param: promptName, code: "chat_template_timeout"});
        throw new BadRequestError(`The model's chat template refused these messages: ${reason}`, {param: promptName, code: "chat_template_error"});
    }
}

/** The call syntax the model's own template writes (template/templateCallSyntax.ts), its markup read as the tokens it names. */
function templateToolSyntax(
    model: LlamaModel, template: JinjaChatTemplate, messages: readonly TemplateMessage[], thought?: {open: string, close: string}
): ToolCallSyntax | ArgumentCallSyntax | null {
    const tokenizer = {tokenize: (text: string) => model.tokenize(text, true), detokenize: (tokens: readonly number[]) => model.detokenize(tokens as Token[], true)};
    const derived = templateCallSyntax(template, tokenizer);
    if (derived == null)
        return argumentCallSyntax(template);
    const syntax = {...derived, sectionPrefix: withoutEmptyThought(derived.sectionPrefix, thought)};
    const markup = (text: string) => text === "" ? LlamaText("") : LlamaText(new SpecialTokensText(text));
    return {
        sectionPrefix: markup(syntax.sectionPrefix), sectionSuffix: markup(syntax.sectionSuffix), prefix: markup(syntax.prefix),
        paramsPrefix: syntax.paramsPrefix, suffix: markup(syntax.suffix), betweenCalls: syntax.betweenCalls == null ? null : markup(syntax.betweenCalls),
        ...(syntax.opensReply === true ? {opensReply: true} : {}),
        // Kimi K2 numbers a reply's calls from 0, or (its later templates) on from the conversation's earlier calls.
        ...(syntax.callIndex == null ? {} : {callIndex: {at: syntax.callIndex.at, first: firstCallIndex(syntax.callIndex.counts, messages), idHead: syntax.callIndex.idHead}})
    };
}

/**
 * A section prefix without the empty thought the template writes before an earlier reply's calls
 * (Command R7B's `<|START_THINKING|><|END_THINKING|>`): the model writes its thought there, which
 * is reasoning; the calls open after it.
 */
function withoutEmptyThought(sectionPrefix: string, thought?: {open: string, close: string}): string {
    const opened = sectionPrefix.trimStart();
    if (thought == null || !opened.startsWith(thought.open))
        return sectionPrefix;
    const afterThought = opened.slice(thought.open.length).trimStart();
    return afterThought.startsWith(thought.close) ? afterThought.slice(thought.close.length).trimStart() : sectionPrefix;
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
