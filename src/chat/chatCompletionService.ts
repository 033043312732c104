import {beginsFreely} from "../engine/reply/createReplyShaper.js";
import type {GenerationEvent, GenerationResult, JsonSchema, LoadedModel, PreparedPrompt, ReplyFormat} from "../engine/types.js";
import {ApiError, BadRequestError} from "../errors.js";
import type {ModelSource} from "../models/modelRegistry.js";
import type {ChatCompletionRequest} from "../protocol/chatCompletionRequest.js";
import {newReplyIdentity, type ReplyIdentity} from "../protocol/replyFields.js";
import {rejectUnsupportedChatFields} from "../protocol/unsupportedFields.js";
import {toGenerationOptions} from "./generationSettings.js";
import {toReplyPlan} from "./replyFormat.js";
import {toChatHistory} from "./toChatHistory.js";

/**
 * Grammars are built now, not once the stream has started, so a schema llama.cpp cannot turn into
 * a grammar (a recursion it cannot unroll, say) is a 400 naming it rather than a failed stream.
 */
function compileGrammars(model: LoadedModel, format: ReplyFormat): void {
    const schemas: Array<{schema: JsonSchema | null, param: string}> = format.type === "json"
        ? [{schema: format.schema, param: "response_format"}]
        : format.type === "toolCalls" && format.choice !== "none"
            ? [
                ...format.tools.map((tool, index) => ({schema: tool.parameters, param: `tools[${index}].function.parameters`})),
                ...(format.answer != null ? [{schema: format.answer.schema, param: "response_format"}] : [])
            ]
            : [];
    for (const {schema, param} of schemas) {
        try {
            model.compileSchema(schema);
        } catch (error) {
            // The model stopped serving (shutdown, its file changed): that answer, not the schema's fault.
            if (error instanceof ApiError)
                throw error;
            throw new BadRequestError(`Invalid '${param}': the schema cannot be turned into a grammar (${(error as Error).message}).`,
                {param, code: "unsupported_schema_keyword"});
        }
    }
}

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
    identity: ReplyIdentity,
    /** `tool_choice` "required" or named: the reply is calls from its first token, so its content is null. */
    opensWithCall: boolean,
    events: AsyncGenerator<GenerationEvent, GenerationResult>,
    release(): void
};

/**
 * Everything that can fail with a meaningful status happens here, before a byte is sent:
 * validation beyond the schema (tools, schemas), the model lookup (and load), template rendering, the context
 * check, and the wait for a free sequence (or 503 when the queue is full).
 */
export class ChatCompletionService {
    public constructor(private readonly models: ModelSource) {}

    public async start(request: ChatCompletionRequest, signal: AbortSignal): Promise<ChatGeneration> {
        const {model, prompt, format} = await this.prepare(request);
        const options = {...toGenerationOptions(request, prompt.tokens.length, model.contextLength), format};
        const lease = await model.acquireSequence(prompt, signal);
        return {
            identity: newReplyIdentity(request.model),
            opensWithCall: format.type === "toolCalls" && (format.choice === "required" || typeof format.choice === "object"),
            events: lease.generate(prompt, options, signal),
            release: () => lease.release()
        };
    }

    /** The prompt's length as the model would see it, tools and template included (the Responses API's input_tokens). */
    public async countPromptTokens(request: ChatCompletionRequest): Promise<number> {
        return (await this.prepare(request)).prompt.tokens.length;
    }

    private async prepare(request: ChatCompletionRequest): Promise<{model: LoadedModel, prompt: PreparedPrompt, format: ReplyFormat}> {
        rejectUnsupportedChatFields(request);
        const plan = toReplyPlan(request);
        const history = toChatHistory(request.messages);
        const model = await this.models.acquire(request.model, plan.needsToolSupport ? "tools" : "chat");
        const format = withoutTools(plan.format, model);
        compileGrammars(model, format);
        // A reasoning model thinks unless told not to (Qwen3's variable, or DeepSeek V3.1's), or unless its reply is constrained from the start.
        const kwargs = request.chat_template_kwargs;
        const thinking = beginsFreely(format) && (kwargs?.enable_thinking ?? kwargs?.thinking ?? true);
        const prompt = await model.prepareChat(history, {tools: format.type === "toolCalls" ? format.tools : [], thinking});
        return {model, prompt, format};
    }
}
