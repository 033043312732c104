import type {ChatHistoryItem, LlamaModel} from "node-llama-cpp";
import type {ApiError} from "../errors.js";
import type {ModelVision} from "./vision/modelVision.js";
import type {LlamaEmbedder} from "./llamaEmbedder.js";
import type {LlamaReranker} from "./llamaReranker.js";
import {loadModelParts, type GenerationParts, type ModelLoadOptions} from "./llamaModelParts.js";
import type {LlamaRuntime} from "./llamaRuntime.js";
import {compileOrDiagnose} from "./grammarDiagnosis.js";
import {promptCacheForModel} from "./promptCache/loadedModelCache.js";
import type {ModelPromptCache} from "./promptCache/modelPromptCache.js";
import type {PromptCache} from "./promptCache/promptCache.js";
import {leaseSequence} from "./sequenceLease.js";
import {ContextLoras} from "./contextLoras.js";
import type {LoraAdapter} from "./loraAdapters.js";
import type {LoraScales} from "./loraScales.js";
import {ModelRetirement} from "./modelRetirement.js";
import {ModelPrompts} from "./modelPrompts.js";
import {hasInfillTokens} from "./textPrompt.js";
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
    /** Stops it, refuses work once stopped, and frees its parts once the work under way ends (modelRetirement.ts). */
    private readonly retirement: ModelRetirement;
    /** Its prompts and tokens (modelPrompts.ts), made outside any sequence: each runs through `retirement`, which dispose waits for. */
    private readonly prompts: ModelPrompts;
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
    ) {
        this.retirement = new ModelRetirement({model, generation, embedder, ranker, vision});
        this.prompts = new ModelPrompts(model, vision, () => this.generating(), () => this.contextLength);
    }

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

    public prepareChat(history: ChatHistoryItem[], options: ChatPromptOptions): Promise<PreparedPrompt> {
        return this.retirement.outsideSequence(() => this.prompts.chat(history, options));
    }

    public compileSchema(schema: JsonSchema | null): void {
        this.retirement.refuseIfStopped();
        this.generating().grammars.compileJson(schema);
    }

    public async compileGrammar(grammar: string): Promise<void> {
        this.retirement.refuseIfStopped();
        const {grammars} = this.generating();
        await compileOrDiagnose(grammar, () => grammars.compileText(grammar));
    }

    public prepareText(prompt: string, promptName: string): Promise<PreparedPrompt> {
        return this.retirement.outsideSequence(() => this.prompts.text(prompt, promptName));
    }

    public prepareTokens(tokens: readonly number[], param: string): Promise<PreparedPrompt & {text: string}> {
        return this.retirement.outsideSequence(() => this.prompts.tokens(tokens, param));
    }

    public prepareInfill(prefix: string, suffix: string, completion: {tokens: number, param: string}): Promise<PreparedPrompt> {
        return this.retirement.outsideSequence(() => this.prompts.infill(prefix, suffix, completion));
    }

    public embed(inputs: ReadonlyArray<string | readonly number[]>, signal: AbortSignal): Promise<EmbeddingResult> {
        const embedder = this.embedder;
        if (embedder == null)
            return Promise.reject(new Error("this model was not loaded for embeddings"));
        return this.retirement.outsideSequence(() => embedder.embed(inputs, signal));
    }

    public rerank(query: string, documents: readonly string[], signal: AbortSignal): Promise<RerankResult> {
        const ranker = this.ranker;
        if (ranker == null)
            return Promise.reject(new Error("this model was not loaded for reranking"));
        return this.retirement.outsideSequence(() => ranker.rank(query, documents, signal));
    }

    public tokenize(content: ReadonlyArray<string | number>, options: TokenizeRequest): Promise<number[]> {
        return this.retirement.outsideSequence(() => this.prompts.tokenize(content, options));
    }

    public tokenPieces(tokens: readonly number[], param: string): TokenPiece[] {
        return this.prompts.tokenPieces(tokens, param);
    }

    public detokenize(tokens: readonly number[], param: string): string {
        return this.prompts.detokenize(tokens, param);
    }

    public promptText(prompt: PreparedPrompt): string {
        return this.prompts.promptText(prompt);
    }

    /**
     * Read at a metrics scrape. A sequence's cells are those its tokens fill (`nextTokenIndex`: no copy
     * of the token list); each sequence owns `contextSize` cells of the context.
     */
    public activity(): ModelActivity | undefined {
        if (this.generation == null)
            return undefined;
        const {pool, sequences, context, steps} = this.generation;
        const cells = sequences.reduce((sum, sequence) => sum + sequence.nextTokenIndex, 0);
        const draftCost = steps.draftCost;
        return {running: pool.leased, waiting: pool.queued, kvCacheUsage: cells / (context.contextSize * sequences.length), sequences: sequences.length, draftTokenCost: draftCost.token, draftPassCost: draftCost.pass};
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
        this.retirement.stopQueueing(reason);
    }

    public dispose(): Promise<void> {
        return this.retirement.dispose(this.promptCache);
    }

    private generating(): GenerationParts {
        if (this.generation == null)
            throw new Error("this model was loaded for embeddings only");
        return this.generation;
    }
}
