import type {ConversationService} from "../../conversation/conversationService.js";
import type {CachePartition} from "../../engine/generationOptions.js";
import type {ModelRegistry} from "../../models/modelRegistry.js";
import type {EmbeddingService} from "../openai-embeddings/embeddingService.js";
import type {CompletionService} from "../openai-completions/completionService.js";
import {checkNumCtx} from "./ollamaOptions.js";
import type {ChatRequest, EmbedRequest, GenerateRequest} from "./ollamaRequest.js";
import type {OllamaGeneration} from "./ollamaReply.js";
import {chatToConversation, generateToConversation} from "./toConversation.js";
import {rawGeneration} from "./rawGeneration.js";

/** A request that generates, or one that only loads or unloads its model (Ollama's empty request). */
export type OllamaStart =
    | {type: "generation", generation: OllamaGeneration, release(): void}
    | {type: "lifecycle", reason: "load" | "unload"};

export type OllamaServiceDependencies = {
    registry: ModelRegistry,
    conversations: ConversationService,
    completions: CompletionService,
    embeddings: EmbeddingService
};

/**
 * Ollama's generating endpoints over chatserve's one engine path: chat, and generate through the
 * model's chat template, run as conversations (conversation service); generate with `raw` or a
 * `suffix` runs as a raw completion (the legacy completions' service, whose fill-in-the-middle
 * framing it shares); embed through the embeddings service. `options.num_ctx` is checked against
 * the context the model is served with.
 */
export class OllamaService {
    public constructor(private readonly services: OllamaServiceDependencies) {}

    public async chat(request: ChatRequest, signal: AbortSignal, cachePartition?: CachePartition): Promise<OllamaStart> {
        const receivedAt = performance.now();
        const model = await this.checkedModel(request.model, request.options);
        if ((request.messages ?? []).length === 0)
            return this.lifecycle(model, request.keep_alive);
        const started = await this.services.conversations.start({...chatToConversation({...request, model}), cachePartition}, signal);
        return this.started(request.model, "chat", started.events, receivedAt, () => started.release());
    }

    public async generate(request: GenerateRequest, signal: AbortSignal, cachePartition?: CachePartition): Promise<OllamaStart> {
        const receivedAt = performance.now();
        const model = await this.checkedModel(request.model, request.options);
        if ((request.prompt ?? "") === "" && (request.suffix ?? "") === "" && (request.images ?? []).length === 0)
            return this.lifecycle(model, request.keep_alive);
        if (request.raw === true || (request.suffix ?? "") !== "") {
            const run = await rawGeneration(this.services.completions, {...request, model}, signal, cachePartition);
            return this.started(request.model, "generate", run.events, receivedAt, run.release);
        }
        const started = await this.services.conversations.start({...generateToConversation({...request, model}), cachePartition}, signal);
        return this.started(request.model, "generate", started.events, receivedAt, () => started.release());
    }

    /** `POST /api/embed`: one vector per input, measured like a generation's last object. */
    public async embed(request: EmbedRequest, signal: AbortSignal): Promise<{model: string, embeddings: number[][], total_duration: number, prompt_eval_count: number}> {
        const receivedAt = performance.now();
        const model = await this.checkedModel(request.model, request.options);
        const list = await this.services.embeddings.embed({model, input: request.input, dimensions: request.dimensions, keep_alive: request.keep_alive}, signal);
        return {
            model: request.model,
            embeddings: list.data.map((entry) => entry.embedding as number[]),
            total_duration: Math.round((performance.now() - receivedAt) * 1e6),
            prompt_eval_count: list.usage.prompt_tokens
        };
    }

    /** The name, once `num_ctx` is checked against the model's context: 404 for a name nothing serves (`id:latest` is `id`: models/modelLookup.ts). */
    private async checkedModel(name: string, options: ChatRequest["options"]): Promise<string> {
        const listed = await this.services.registry.describe(name);
        checkNumCtx(options, name, listed.contextLength);
        return name;
    }

    /**
     * Ollama's empty request: it loads the model and answers at once (`done_reason` "load"); with
     * `keep_alive` 0 it unloads it instead ("unload"), once its running requests end.
     */
    private async lifecycle(model: string, keepAlive: ChatRequest["keep_alive"]): Promise<OllamaStart> {
        if (keepAlive != null && keepAlive !== "forever" && keepAlive.ms === 0) {
            await this.services.registry.unload(model);
            return {type: "lifecycle", reason: "unload"};
        }
        await this.services.registry.warm(model, {keepAlive});
        return {type: "lifecycle", reason: "load"};
    }

    private started(model: string, kind: OllamaGeneration["kind"], events: OllamaGeneration["events"], receivedAt: number, release: () => void): OllamaStart {
        return {type: "generation", generation: {model, kind, events, clock: {receivedAt, generationAt: performance.now()}}, release};
    }
}
