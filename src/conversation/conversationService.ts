import type {Logger} from "pino";
import {beginsFreely} from "../engine/reply/createReplyShaper.js";
import type {LoadedModel} from "../engine/loadedModel.js";
import type {PreparedPrompt} from "../engine/preparedPrompt.js";
import type {ReplyFormat} from "../engine/generationOptions.js";
import type {GenerationEvent, GenerationResult} from "../engine/generationEvents.js";
import type {HeldModel, ModelSource} from "../models/modelRegistry.js";
import type {Conversation} from "./conversation.js";
import {choiceOptions, toGenerationOptions} from "./generationSettings.js";
import {toReplyPlan} from "./replyPlan.js";
import {compileGrammars} from "./replyGrammars.js";
import {compileTextGrammar} from "./textConstraint.js";
import type {IgnoredKeyword} from "../json-schema/schemaStrictness.js";
import {toChatHistory} from "./chatHistory.js";
import {toTemplateMessages, toTemplateTools} from "./templateMessages.js";
import {checkImageCount, loadImage} from "../images/imageInput.js";
import type {ImageLimits} from "../images/imageLimits.js";
import {imagePartsOf} from "./imageParts.js";
import {promptCells} from "../engine/vision/imagePrompt.js";
import {BadRequestError} from "../errors.js";
import {resolveLoraScales} from "../engine/loraScales.js";

/**
 * With tool_choice "auto" or "none", a model whose template cannot render tools simply answers:
 * in text, or in the JSON that response_format asks for.
 */
function withoutTools(format: ReplyFormat, model: LoadedModel): ReplyFormat {
    if (format.type !== "toolCalls" || model.supportsTools)
        return format;
    return format.answer != null ? {type: "json", schema: format.answer.schema} : {type: "text"};
}

/** A generation that holds a sequence: iterate `events`, then `release()` in a finally. */
export type ChatGeneration = {
    /** `tool_choice` "required" or named: the reply is calls from its first token, so its content is null. */
    opensWithCall: boolean,
    /** The rendered prompt's tokens (Anthropic's message_start reports them before generating). */
    promptTokens: number,
    events: AsyncGenerator<GenerationEvent, GenerationResult>,
    /**
     * With `n` > 1, choices 1 on: each starts once the one before has ended, on the same sequence,
     * whose cache then holds the prompt (only its last token is evaluated again).
     */
    moreChoices: Array<() => AsyncGenerator<GenerationEvent, GenerationResult>>,
    /** Whether each choice reports its tokens' logprobs (`logprobs: true`). */
    logprobs: boolean,
    release(): void
};

/**
 * Runs a conversation, whichever API it came in on. Everything that can fail with a meaningful
 * status happens here, before a byte is sent: validation beyond the wire schema (tools, schemas,
 * images), the model lookup (and load), template rendering, the context check, and the wait for a
 * free sequence (or 503 when the queue is full). Errors name the request's own fields through the
 * wire paths the conversation's parts carry.
 */
export class ConversationService {
    /**
     * `logger`: where a debug line says what a request's lenient schemas went without. `imageLimits`:
     * what an image part may be (absent: images are refused, as by a model without vision).
     */
    public constructor(private readonly models: ModelSource, private readonly logger?: Logger, private readonly imageLimits?: ImageLimits) {}

    public async start(conversation: Conversation, signal: AbortSignal): Promise<ChatGeneration> {
        const {held, prompt, format} = await this.prepare(conversation, signal);
        const {model} = held;
        try {
            const options = {
                ...toGenerationOptions(conversation, promptCells(prompt), model.contextLength,
                    {modelDefaults: held.sampling, vocabularySize: model.vocabularySize}),
                format,
                ...(conversation.logprobs != null ? {logprobs: conversation.logprobs} : {}),
                ...(conversation.prediction != null ? {prediction: conversation.prediction} : {})
            };
            const loraScales = conversation.lora == null ? undefined : resolveLoraScales(model.loraAdapters ?? [], conversation.lora);
            const lease = await model.acquireSequence(prompt, signal, conversation.cachePartition, loraScales);
            return {
                opensWithCall: format.type === "toolCalls" && (format.choice === "required" || typeof format.choice === "object"),
                promptTokens: promptCells(prompt),
                events: lease.generate(prompt, options, signal),
                moreChoices: Array.from({length: conversation.choices - 1}, (_, index) => () => lease.generate(prompt, choiceOptions(options, index + 1), signal)),
                logprobs: conversation.logprobs != null,
                release: () => {
                    lease.release();
                    held.release();
                }
            };
        } catch (error) {
            held.release();
            throw error;
        }
    }

    /** The prompt's length as the model would see it, tools and template included (the Responses API's input_tokens). */
    public async countPromptTokens(conversation: Conversation): Promise<number> {
        const {held, prompt} = await this.prepare(conversation);
        held.release();
        return promptCells(prompt);
    }

    /**
     * The prompt exactly as a chat request would evaluate it, as text (llama-server's /apply-template),
     * and its length as that request's usage would count it.
     */
    public async renderPrompt(conversation: Conversation): Promise<{text: string, tokens: number}> {
        const {held, prompt} = await this.prepare(conversation);
        try {
            return {text: held.model.promptText(prompt), tokens: promptCells(prompt)};
        } finally {
            held.release();
        }
    }

    /** The model held for this request (release it when done), the rendered prompt and the reply's format. */
    private async prepare(conversation: Conversation, signal?: AbortSignal): Promise<{held: HeldModel, prompt: PreparedPrompt, format: ReplyFormat}> {
        const plan = toReplyPlan(conversation);
        const imageParts = imagePartsOf(conversation.messages);
        let history = toChatHistory(conversation.messages, {images: imageParts.length > 0});
        const held = await this.models.acquire(conversation.model, plan.needsToolSupport ? "tools" : "chat", {keepAlive: conversation.keepAlive, signal});
        try {
            const {model} = held;
            const format = compileGrammars(model, withoutTools(plan.format, model), plan.schemas);
            if (format.type === "grammar" && conversation.output.type === "grammar")
                await compileTextGrammar(model, format, conversation.output.path);
            logIgnored(this.logger, conversation.model, plan.schemas.ignored);
            // A reasoning model thinks unless told not to, or unless its reply is constrained from the start.
            const thinking = beginsFreely(format) && conversation.thinking;
            // A model that cannot see reads a tool result's picture as `[image]`; a user's is a 400 (loadImages).
            const seen = model.imageInputRefusal == null ? imageParts : imageParts.filter((part) => !part.toolResult);
            if (seen.length < imageParts.length)
                history = toChatHistory(conversation.messages, {images: false});
            const images = await this.loadImages(model, seen, conversation.promptPath, signal);
            const tools = format.type === "toolCalls" ? format.tools : [];
            const prompt = await model.prepareChat(history, {
                tools, thinking, images, promptName: conversation.promptPath, cachePartition: conversation.cachePartition,
                templateMessages: toTemplateMessages(conversation.messages, {images: seen.length === imageParts.length && imageParts.length > 0}),
                // The client's schemas as sent, of the tools the reply may call.
                templateTools: toTemplateTools(conversation.tools.filter((tool) => tools.some((allowed) => allowed.name === tool.name))),
                ...(conversation.templateVariables == null ? {} : {templateVariables: conversation.templateVariables}),
                ...(signal == null ? {} : {signal})
            });
            return {held, prompt, format};
        } catch (error) {
            held.release();
            throw error;
        }
    }

    /**
     * The request's images, checked and read (downloaded where they are URLs) before anything waits
     * for a sequence; one at a time, each within the limits. A model without vision refuses them
     * first, and says why, before any is fetched.
     */
    private async loadImages(model: LoadedModel, parts: ReturnType<typeof imagePartsOf>, promptPath: string, signal: AbortSignal | undefined) {
        if (parts.length === 0)
            return [];
        if (model.imageInputRefusal != null || this.imageLimits == null)
            throw new BadRequestError(`Invalid '${parts[0]!.param}': this model does not take image input (${model.imageInputRefusal ?? "image input is off"}); send text parts only.`,
                {param: parts[0]!.param, code: "image_input_not_supported"});
        checkImageCount(parts.length, this.imageLimits, promptPath);
        const images = [];
        for (const part of parts)
            images.push({...await loadImage(part.url, part.param, this.imageLimits, signal ?? new AbortController().signal), param: part.param});
        return images;
    }
}

/** One debug line per request, and only when a schema without `strict` asked for what the grammar cannot enforce. */
function logIgnored(logger: Logger | undefined, model: string, ignored: readonly IgnoredKeyword[]): void {
    if (ignored.length > 0)
        logger?.debug({event: "schema_keywords_ignored", model, count: ignored.length, ignored: ignored.slice(0, 10)});
}
