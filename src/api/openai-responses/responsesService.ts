import type {Logger} from "pino";
import type {ConversationService, ChatGeneration} from "../../conversation/conversationService.js";
import type {CachePartition} from "../../engine/generationOptions.js";
import {ApiError, BadRequestError, NotFoundError} from "../../errors.js";
import type {InputItem, ResponsesRequest} from "./responsesRequest.js";
import type {ResponseObject} from "./responsesResponse.js";
import type {ResponseStore, StoredResponse} from "./responseStore.js";
import type {ResponseTools} from "./responseTools.js";
import {toConversation, type SourcedItem} from "./toConversation.js";
import {newResponseSnapshot} from "./responseSnapshot.js";

/** A response being generated: what it answers, and the generation that writes it. */
export type ResponseRun = {
    snapshot: ResponseObject,
    tools: ResponseTools,
    /** The conversation up to this response (earlier items and this request's input), as it will be stored. */
    items: InputItem[],
    /** Whether the finished response is kept for `previous_response_id` and GET. */
    store: boolean,
    generation: ChatGeneration
};

/**
 * `POST /v1/responses` over the conversation core: the request (and the stored response it
 * continues) becomes a conversation, which the conversation service validates, templates, checks
 * against the context and generates. Its parts remember where they were in the Responses request
 * (`input[1].content[0]`, `previous_response_id`), so errors name the Responses request's fields.
 */
export class ResponsesService {
    public constructor(
        private readonly conversations: ConversationService,
        private readonly store: ResponseStore,
        private readonly logger: Logger
    ) {}

    /** `owner`: whose stored responses it may continue; `cachePartition`: whose cached prompts it may reuse (http/cachePartition.ts). */
    public async start(request: ResponsesRequest, owner: string, signal: AbortSignal, cachePartition?: CachePartition): Promise<ResponseRun> {
        const {conversation, items, tools} = this.toConversation(request, owner);
        const generation = await this.conversations.start({...conversation, cachePartition}, signal);
        return {snapshot: newResponseSnapshot(request), tools, items, store: request.store !== false, generation};
    }

    /** `POST /v1/responses/input_tokens`: the prompt's tokens, nothing generated. */
    public async countInputTokens(request: ResponsesRequest, owner: string, cachePartition?: CachePartition): Promise<number> {
        return this.conversations.countPromptTokens({...this.toConversation(request, owner).conversation, cachePartition});
    }

    /** Keeps a finished response (unless the request said `store: false`). */
    public keep(owner: string, run: ResponseRun, response: ResponseObject): void {
        if (run.store)
            this.store.put(owner, {response, items: [...run.items, ...response.output as InputItem[]]});
    }

    public retrieve(owner: string, id: string): ResponseObject {
        return this.stored(owner, id, "response_id").response;
    }

    public remove(owner: string, id: string): void {
        if (!this.store.delete(owner, id))
            throw notFound(id, "response_id");
    }

    private toConversation(request: ResponsesRequest, owner: string) {
        const earlier = request.previous_response_id == null ? [] : this.stored(owner, request.previous_response_id, "previous_response_id").items;
        const input: InputItem[] = typeof request.input === "string" ? [{role: "user", content: request.input}] : request.input ?? [];
        const sourced: SourcedItem[] = [
            ...earlier.map((item) => ({item, param: null})),
            ...input.map((item, index) => ({item, param: typeof request.input === "string" ? "input" : `input[${index}]`}))
        ];
        const {conversation, tools} = toConversation(request, sourced);
        if (tools.skipped.length > 0)
            this.logger.info({event: "hosted_tools_skipped", model: request.model, tools: tools.skipped},
                "hosted tools left out of the prompt: chatserve cannot run them");
        return {conversation, items: [...earlier, ...input], tools};
    }

    private stored(owner: string, id: string, param: string): StoredResponse {
        const stored = this.store.get(owner, id);
        if (stored == null)
            throw param === "previous_response_id"
                ? new BadRequestError(`Previous response with id '${id}' not found. Responses are kept in memory until the server restarts, and only when sent with store true.`,
                    {param, code: "previous_response_not_found"})
                : notFound(id, param);
        return stored;
    }
}

function notFound(id: string, param: string): ApiError {
    return new NotFoundError(`No response with id '${id}' found. Responses are kept in memory until the server restarts, and only when sent with store true.`, "not_found", param);
}
