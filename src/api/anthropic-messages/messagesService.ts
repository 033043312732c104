import type {Logger} from "pino";
import type {ConversationService, ChatGeneration} from "../../conversation/conversationService.js";
import type {Conversation} from "../../conversation/conversation.js";
import type {CachePartition} from "../../engine/generationOptions.js";
import type {MessagesRequest} from "./messagesRequest.js";
import {toConversation} from "./toConversation.js";

/**
 * `POST /v1/messages` over the conversation core: the request becomes a conversation, which the
 * conversation service validates, templates, checks against the context and generates. Its parts
 * remember where they were in the Messages request, so errors name the Messages request's fields.
 */
export class MessagesService {
    public constructor(private readonly conversations: ConversationService, private readonly logger: Logger) {}

    /** `cachePartition`: whose cached prompts it may reuse (http/cachePartition.ts). */
    public start(request: MessagesRequest, signal: AbortSignal, cachePartition?: CachePartition): Promise<ChatGeneration> {
        return this.conversations.start(this.toConversation(request, cachePartition), signal);
    }

    /** `POST /v1/messages/count_tokens`: the prompt's tokens as a request would render it, nothing generated. */
    public countTokens(request: MessagesRequest, cachePartition?: CachePartition): Promise<number> {
        return this.conversations.countPromptTokens(this.toConversation(request, cachePartition));
    }

    private toConversation(request: MessagesRequest, cachePartition: CachePartition | undefined): Conversation {
        const {conversation, skippedTools} = toConversation(request);
        if (skippedTools.length > 0)
            this.logger.info({event: "server_tools_skipped", model: request.model, tools: skippedTools},
                "server tools left out of the prompt: chatserve cannot run them");
        return {...conversation, cachePartition};
    }
}
