import type {ChatHistoryItem, LlamaModel, Token} from "node-llama-cpp";
import {ServiceShuttingDownError, type ApiError} from "../errors.js";
import type {ModelVision} from "./vision/modelVision.js";
import {renderChatPrompt} from "./chatPrompt.js";
import type {LlamaEmbedder} from "./llamaEmbedder.js";
import type {LlamaReranker} from "./llamaReranker.js";
import {tokenizeContent} from "./contentTokens.js";
import {promptText} from "./promptText.js";
import {pieceOf, piecesText} from "./tokenPieces.js";
import {loadModelParts, type GenerationParts, type ModelLoadOptions} from "./llamaModelParts.js";
import type {LlamaRuntime} from "./llamaRuntime.js";
import {compileOrDiagnose} from "./grammarDiagnosis.js";
import {imageCacheId} from "./cachePartitions.js";
import {promptCacheForModel} from "./promptCache/loadedModelCache.js";
import type {ModelPromptCache} from "./promptCache/modelPromptCache.js";
import type {PromptCache} from "./promptCache/promptCache.js";
import {leaseSequence} from "./sequenceLease.js";
import {ContextLoras} from "./contextLoras.js";
import type {LoraAdapter} from "./loraAdapters.js";
import type {LoraScales} from "./loraScales.js";
import {refuseHistoryBeyondContext, refuseTextBeyondContext} from "./promptSizeGuard.js";
import {hasInfillTokens, prepareInfillPrompt, prepareTextPrompt, prepareTokenPrompt, refuseTokensOutsideVocabulary} from "./textPrompt.js";
import type {EmbeddingResult, LoadedModel, ModelActivity, RerankResult, SequenceLease, TokenizeRequest, TokenPiece} from "./loadedModel.js";
import type {ChatPromptOptions, PreparedPrompt} from "./preparedPrompt.js";
import type {CachePartition, JsonSchema} from "./generationOptions.js";

/**
 * A GGUF model loaded through node-llama-cpp: its weights; for text generation one context split
 * into `parallel` sequences of `contextSize` tokens each (a request never gets less than what
 * /v1/models reports) and the chat template; for embedding models an embedding context.
 * Owns and disposes all of them (llamaModelParts.ts loads them); this is what the layers above call.
 */
export class LlamaLoadedModel implements LoadedModel {
    /** Work on the model outside a leased sequence (rendering and tokenizing prompts, embedding), which dispose waits for. */
    private readonly outsideSequences = new Set<Promise<unknown>>();
    private stoppedWith: ApiError | null = null;
    /** Its use of the server's prompt cache (promptCache/): prefixes kept past their sequence; null: none. */
    private promptCache: ModelPromptCache | null = null;
    /** The LoRA scales its generation context decodes under (made at the first lease); null without adapters. */
    private loras: ContextLoras | null = null;

    private constructor(
        private readonly model: LlamaModel,
        private readonly generation: GenerationParts | null,
        private readonly embedder: LlamaEmbedder | null,
        private readonly ranker: LlamaReranker | null,
        public readonly supportsTools: boolean,
        /** What --ctx-size asked for (capped at the trained context). */
        private readonly requestedContextSize: number,
        private readonly vision: ModelVision,
        /** chatserve.json's `lora`: the adapters its generation context was created with, at those scales. */
        private readonly adapters: readonly LoraAdapter[]
    ) {}

    public static async load(runtime: LlamaRuntime, options: ModelLoadOptions, promptCache?: PromptCache): Promise<LlamaLoadedModel> {
        const {model, generation, embedder, ranker, vision, contextSize} = await loadModelParts(runtime, options);
        const loaded = new LlamaLoadedModel(model, generation, embedder, ranker, options.generates && options.tools, contextSize, vision, options.loraAdapters ?? []);
        const {kvCacheTypes} = options as {kvCacheTypes?: unknown};
        loaded.promptCache = await promptCacheForModel(promptCache, runtime, generation, {
            path: options.path, projector: options.projector?.path, kvCacheTypes, ...(options.loraAdapters == null ? {} : {loraAdapters: options.loraAdapters})
        });
        return loaded;
    }

    /**
     * What was asked for, as /v1/models says before the model loads: llama.cpp rounds a sequence's
     * cells up to a multiple of 256, and the spare ones are not handed out (--ctx-size 200 means 200).
     */
    public get contextLength(): number {
        return Math.min(this.requestedContextSize, this.generation?.context.contextSize ?? this.embedder?.contextSize ?? this.ranker?.contextSize ?? this.requestedContextSize);
    }

    /** llama.cpp's own account of the generation context's buffers: the KV cache, and the compute and output buffers. */
    public get contextMemoryBytes(): number | undefined {
        const usage = this.generation?.context.memoryUsage;
        return usage == null ? undefined : usage.ram + usage.vram;
    }

    /** llama.cpp's breakdown of what it allocated for the weights and each context (node-llama-cpp reads it after each is created). */
    public get memory(): {ram: number, vram: number} {
        const parts = [this.model.memoryUsage, this.generation?.context.memoryUsage, this.generation?.draft?.memory, this.embedder?.memoryUsage, this.ranker?.memoryUsage];
        return parts.reduce<{ram: number, vram: number}>(
            (sum, part) => part == null ? sum : {ram: sum.ram + part.ram, vram: sum.vram + part.vram}, {ram: 0, vram: 0});
    }

    public get supportsInfill(): boolean {
        return hasInfillTokens(this.model);
    }

    public get vocabularySize(): number {
        return this.model.fileInfo.metadata.tokenizer.ggml.tokens.length;
    }

    public get embeddingDimensions(): number {
        return this.model.embeddingVectorSize;
    }

    /** Why the draft model it was planned with is not used (its tokenizer differs, or it failed to load); null: used, or none. */
    public get draftRefusal(): string | null {
        return this.generation?.draftRefusal ?? null;
    }

    public get imageInputRefusal(): string | null {
        return this.vision.refusal;
    }

    public prepareChat(
        history: ChatHistoryItem[], {images = [], promptName, cachePartition, signal = new AbortController().signal, ...options}: ChatPromptOptions
    ): Promise<PreparedPrompt> {
        return this.outsideSequence(async () => {
            await refuseHistoryBeyondContext(this.model, history, this.contextLength, promptName);
            const partitioned = images.map((image) => ({...image, id: imageCacheId(image.id, cachePartition)}));
            const tokenized = await this.vision.tokenize(partitioned, this.generating().context.batchSize, promptName, signal);
            const {chatWrapper: wrapper, templates} = this.generating();
            return renderChatPrompt(this.model, {wrapper, templates}, history, {...options, images: tokenized, promptName});
        });
    }

    public compileSchema(schema: JsonSchema | null): void {
        if (this.stoppedWith != null)
            throw this.stoppedWith;
        this.generating().grammars.compileJson(schema);
    }

    public async compileGrammar(grammar: string): Promise<void> {
        if (this.stoppedWith != null)
            throw this.stoppedWith;
        const {grammars} = this.generating();
        await compileOrDiagnose(grammar, () => grammars.compileText(grammar));
    }

    public prepareText(prompt: string, promptName: string): Promise<PreparedPrompt> {
        return this.outsideSequence(async () => {
            await refuseTextBeyondContext(this.model, [prompt], this.contextLength, {param: promptName});
            return prepareTextPrompt(this.model, prompt);
        });
    }

    public prepareTokens(tokens: readonly number[], param: string): Promise<PreparedPrompt & {text: string}> {
        return this.outsideSequence(async () => prepareTokenPrompt(this.model, tokens, this.contextLength, param));
    }

    public prepareInfill(prefix: string, suffix: string, completion: {tokens: number, param: string}): Promise<PreparedPrompt> {
        return this.outsideSequence(async () => {
            const prompt = await prepareInfillPrompt(this.model, prefix, suffix, {contextLength: this.contextLength, completionTokens: completion.tokens, lengthParam: completion.param});
            if (prompt == null)
                throw new Error("this model has no fill-in-the-middle tokens");
            return prompt;
        });
    }

    public embed(inputs: ReadonlyArray<string | readonly number[]>, signal: AbortSignal): Promise<EmbeddingResult> {
        const embedder = this.embedder;
        if (embedder == null)
            return Promise.reject(new Error("this model was not loaded for embeddings"));
        return this.outsideSequence(() => embedder.embed(inputs, signal));
    }

    public rerank(query: string, documents: readonly string[], signal: AbortSignal): Promise<RerankResult> {
        const ranker = this.ranker;
        if (ranker == null)
            return Promise.reject(new Error("this model was not loaded for reranking"));
        return this.outsideSequence(() => ranker.rank(query, documents, signal));
    }

    public tokenize(content: ReadonlyArray<string | number>, options: TokenizeRequest): Promise<number[]> {
        return this.outsideSequence(async () => tokenizeContent(this.model, content, options));
    }

    public tokenPieces(tokens: readonly number[], param: string): TokenPiece[] {
        refuseTokensOutsideVocabulary(this.model, tokens, param);
        return tokens.map((token) => pieceOf(this.model, token as Token));
    }

    public detokenize(tokens: readonly number[], param: string): string {
        refuseTokensOutsideVocabulary(this.model, tokens, param);
        return piecesText(this.model, tokens as Token[]);
    }

    public promptText(prompt: PreparedPrompt): string {
        return promptText(this.model, prompt);
    }

    /**
     * Read at a metrics scrape. A sequence's cells are those its tokens fill (`nextTokenIndex`: no copy
     * of the token list); each sequence owns `contextSize` cells of the context.
     */
    public activity(): ModelActivity | undefined {
        if (this.generation == null)
            return undefined;
        const {pool, sequences, context} = this.generation;
        const cells = sequences.reduce((sum, sequence) => sum + sequence.nextTokenIndex, 0);
        return {running: pool.leased, waiting: pool.queued, kvCacheUsage: cells / (context.contextSize * sequences.length), sequences: sequences.length};
    }

    /** The model's LoRA adapters at the scales a request gets when it names none. */
    public get loraAdapters(): readonly LoraAdapter[] {
        return this.adapters;
    }

    public async acquireSequence(prompt: PreparedPrompt, signal: AbortSignal, cachePartition?: CachePartition, loraScales?: LoraScales): Promise<SequenceLease> {
        const generation = this.generating();
        const loras = this.adapters.length === 0 ? null : this.loras ??= new ContextLoras(generation.context, this.adapters);
        return await leaseSequence({model: this.model, generation, promptCache: this.promptCache, images: this.vision.images, loras}, prompt, signal, cachePartition, loraScales);
    }

    public stopQueueing(reason: ApiError): void {
        this.stoppedWith ??= reason;
        this.generation?.pool.close(reason);
        this.embedder?.stopQueueing(reason);
        this.ranker?.stopQueueing(reason);
    }

    public async dispose(): Promise<void> {
        this.stopQueueing(new ServiceShuttingDownError());
        // A request that got this model before it was retired may be tokenizing its prompt: that ends first.
        await Promise.allSettled(this.outsideSequences);
        if (this.generation != null) {
            // Generations still running hold sequences of this context: let them end first.
            await this.generation.pool.whenIdle();
            // What its sequences hold outlives it in the prompt cache (an eviction, a keep-alive, a shutdown).
            const cache = this.promptCache;
            await cache?.safely("save prefixes at unload", () => cache.keepAll(this.generation!.sequences), undefined);
            await this.generation.context.dispose();
            await this.generation.draft?.dispose();
        }
        await this.embedder?.dispose();
        await this.ranker?.dispose();
        // The projector holds the model's vocabulary: it goes first.
        this.vision.dispose();
        await this.model.dispose();
    }

    private outsideSequence<T>(work: () => Promise<T>): Promise<T> {
        if (this.stoppedWith != null)
            return Promise.reject(this.stoppedWith);
        const running = work();
        this.outsideSequences.add(running);
        const forget = () => this.outsideSequences.delete(running);
        running.then(forget, forget);
        return running;
    }

    private generating(): GenerationParts {
        if (this.generation == null)
            throw new Error("this model was loaded for embeddings only");
        return this.generation;
    }
}
