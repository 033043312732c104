import type {Logger} from "pino";
import type {ChatCompletionService, ChatGeneration} from "../../conversation/conversationService.js";
import {ApiError} from "../../errors.js";
import type {MessagesRequest} from "./messagesRequest.js";
import {toChatRequest, type ChatTranslation} from "./toConversation.js";

/**
 * `POST /v1/messages` over the chat-completions path: the request becomes a chat request, which
 * the chat service validates, templates, checks against the context and generates; errors it
 * raises name the Messages request's fields.
 */
export class MessagesService {
    public constructor(private readonly chat: ChatCompletionService, private readonly logger: Logger) {}

    public async start(request: MessagesRequest, signal: AbortSignal): Promise<ChatGeneration> {
        const translation = this.translate(request);
        try {
            return await this.chat.start(translation.request, signal);
        } catch (error) {
            throw inMessagesTerms(error, translation);
        }
    }

    /** `POST /v1/messages/count_tokens`: the prompt's tokens as a request would render it, nothing generated. */
    public async countTokens(request: MessagesRequest): Promise<number> {
        const translation = this.translate(request);
        try {
            return await this.chat.countPromptTokens(translation.request);
        } catch (error) {
            throw inMessagesTerms(error, translation);
        }
    }

    private translate(request: MessagesRequest): ChatTranslation {
        const translation = toChatRequest(request);
        if (translation.skippedTools.length > 0)
            this.logger.info({event: "server_tools_skipped", model: request.model, tools: translation.skippedTools},
                "server tools left out of the prompt: chatserve cannot run them");
        return translation;
    }
}

/** An error of the chat path, its param and message naming the Messages request's field (`messages[3]` is the chat request's fourth message). */
function inMessagesTerms(error: unknown, {messageParams, toolParams, imageParams}: ChatTranslation): unknown {
    if (!(error instanceof ApiError) || error.param == null)
        return error;
    // An image part's field (its URL) is its block's source; the part itself, its block.
    const image = /^(messages\[\d+\]\.content\[\d+\])(\.image_url\.url)?$/.exec(error.param);
    const imageParam = image == null ? undefined : imageParams.get(image[1]!);
    if (imageParam != null)
        return error.withParam(image![2] == null ? imageParam.block : imageParam.source);
    const message = /^messages\[(\d+)\](.*)$/.exec(error.param);
    const tool = /^tools\[(\d+)\]\.function\.parameters(.*)$/.exec(error.param);
    const param = message != null ? (messageParams[Number(message[1])] ?? "messages") + message[2]!.replace(/^\.tool_call_id$/, "")
        : tool != null ? `${toolParams[Number(tool[1])] ?? "tools"}.input_schema${tool[2]}`
            : error.param === "max_completion_tokens" ? "max_tokens"
                : error.param === "stop" ? "stop_sequences"
                    : error.param;
    return error.withParam(param);
}
