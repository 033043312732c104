import {setImmediate as nextTurn} from "node:timers/promises";
import {JinjaTemplateChatWrapper, resolveChatWrapper, type ChatWrapper, type LlamaContext, type LlamaContextSequence, type LlamaModel} from "node-llama-cpp";
import {ModelVision} from "./vision/modelVision.js";
import {checkTemplatesFinish, loadModelChatTemplates, type ModelChatTemplates} from "./template/modelChatTemplate.js";
import {DecodeSteps} from "./decodeSteps.js";
import {LlamaEmbedder} from "./llamaEmbedder.js";
import {LlamaReranker} from "./llamaReranker.js";
import {ReplyGrammars} from "./reply/grammars.js";
import type {LlamaRuntime} from "./llamaRuntime.js";
import {SequencePool} from "./sequencePool.js";
import {loraAdapterRefusal, type LoraAdapter} from "./loraAdapters.js";
import {DraftModel, type DraftModelOptions} from "./speculation/draftModel.js";
import {defaultKvCacheTypes, ggmlTypeName, isDefaultKvCache, kvCacheTypeRefusal, type KvCacheTypes} from "./kvCacheTypes.js";

export type ModelLoadOptions = {
    path: string,
    /** Context per sequence; capped at the model's trained context. */
    contextSize: number,
    /** Sequences evaluated together in shared batches (concurrent requests). */
    parallel: number,
    maxQueue: number,
    /** False for encoder-only models (BERT…), which only embed. */
    generates: boolean,
    /** Whether the chat template renders tools. */
    tools: boolean,
    embeds: boolean,
    /** A reranker (pooling `rank`): a ranking context instead of an embedding one. */
    ranks?: boolean,
    /** A Jinja chat template (chatserve.json's chat_template) used instead of the one in the GGUF. */
    chatTemplate?: string,
    /** A vision projector (mmproj GGUF) loaded with the model, for image input; `threads` encode an image. */
    projector?: {path: string, threads: number},
    /** What the generation context's KV cache stores keys and values as; absent: f16. */
    kvCacheTypes?: KvCacheTypes,
    /** LoRA adapters applied to the generation context, each at its scale (chatserve.json's `lora`). */
    loraAdapters?: readonly LoraAdapter[],
    /** Why a paired projector is not loaded (its file failed the checks before llama.cpp sees it): image requests hear it. */
    projectorRefusal?: string,
    /** A draft model for speculative decoding (chatserve.json's `draft`, --draft-model), loaded beside the generation context. */
    draft?: DraftModelOptions,
    /** Lookup decoding for this model (chatserve.json's `lookup_decoding`); absent: the runtime's (on unless --no-lookup-decoding). */
    lookupDecoding?: boolean
};

/**
 * The most tokens a reranker evaluates in one batch, and so the longest pair it scores: an encoder
 * sees a pair whole, in one batch (llama.cpp asserts it), and its compute buffer grows with the
 * batch's square. llama-server's default physical batch too, with which it refuses longer pairs.
 */
const rankingBatchSize = 512;

/** What a model that generates text holds: one context split into sequences, their decode loop and pool, its chat template and grammars. */
export type GenerationParts = {
    context: LlamaContext, steps: DecodeSteps, sequences: LlamaContextSequence[], pool: SequencePool<LlamaContextSequence>,
    chatWrapper: ChatWrapper, grammars: ReplyGrammars,
    /** The model's Jinja templates, which render its prompts; null: it has none, and `chatWrapper` renders them. */
    templates: ModelChatTemplates | null,
    /** Its draft model (speculation/draftModel.ts), disposed after the context; null: none, or refused (`draftRefusal` says why). */
    draft: DraftModel | null,
    draftRefusal: string | null
};

/** Everything llamaLoadedModel.ts owns and disposes; `contextSize` is what was asked for, capped at the trained context. */
export type LlamaModelParts = {
    model: LlamaModel,
    generation: GenerationParts | null,
    embedder: LlamaEmbedder | null,
    ranker: LlamaReranker | null,
    vision: ModelVision,
    contextSize: number
};

/**
 * Loads a GGUF's weights and creates what `options` ask for: for text generation one context split
 * into `parallel` sequences of `contextSize` tokens each and the chat template; for embedding models
 * an embedding context; a vision projector when one is paired. On a failure the weights are freed.
 */
export async function loadModelParts(runtime: LlamaRuntime, options: ModelLoadOptions): Promise<LlamaModelParts> {
    const mark = runtime.errors.mark;
    const model = await runtime.llama.loadModel({modelPath: options.path}).catch(async (error: unknown) => {
        // "Failed to load model" alone: llama.cpp's log says why. Its lines reach this thread
        // after the failure does, within the same turn of the event loop.
        await nextTurn();
        const reasons = runtime.errors.since(mark);
        throw reasons.length === 0 ? error : new Error(`${(error as Error).message}: ${reasons.join("; ")}`, {cause: error});
    });
    try {
        const contextSize = Math.min(options.contextSize, model.trainContextSize);
        let generation: GenerationParts | null = null;
        if (options.generates) {
            const context = await createGenerationContext(runtime, model, {
                contextSize, sequences: options.parallel, kvCacheTypes: options.kvCacheTypes, loraAdapters: options.loraAdapters ?? []
            });
            const sequences = Array.from({length: options.parallel}, () => context.getSequence());
            const {templates, parseError} = loadModelChatTemplates(model, options.chatTemplate);
            // As llama-server refuses to start on one: serving it with some other format instead would be silent.
            if (parseError != null)
                throw new Error(`its chat template cannot be parsed (${parseError}); give it one that can as chat_template in chatserve.json`);
            if (templates != null)
                checkTemplatesFinish(templates);
            // A draft whose tokenizer differs, or that llama.cpp cannot load, is refused: the model serves without one.
            const loadedDraft = options.draft == null ? null : await DraftModel.load(runtime, model, context, sequences, options.draft)
                .catch((error: unknown) => ({refusal: `llama.cpp could not load it (${(error as Error).message})`}));
            const draft = loadedDraft != null && "draft" in loadedDraft ? loadedDraft.draft : null;
            const ownSpeculation = options.lookupDecoding == null ? runtime.speculation
                : {...runtime.speculation, lookup: options.lookupDecoding};
            const speculation = draft == null ? ownSpeculation : {lookup: false, ...ownSpeculation, draft};
            generation = {
                context,
                draft,
                draftRefusal: loadedDraft != null && "refusal" in loadedDraft ? `draft model ${options.draft!.path} not used: ${loadedDraft.refusal}` : null,
                steps: new DecodeSteps(context, runtime.threads, runtime.decodeThreads, runtime.flashAttention === "auto", speculation),
                sequences,
                pool: new SequencePool(sequences, options.maxQueue),
                chatWrapper: chatWrapperFor(model, options.chatTemplate, templates != null),
                grammars: new ReplyGrammars(model),
                templates
            };
        }
        const embedder = options.embeds
            ? new LlamaEmbedder(model, await model.createEmbeddingContext({contextSize, threads: runtime.threads}), contextSize, options.maxQueue)
            : null;
        // node-llama-cpp refuses a model without the classification head rank pooling needs: the load fails saying so.
        const rankingBatch = Math.min(contextSize, rankingBatchSize);
        const ranker = options.ranks === true
            ? new LlamaReranker(model, await model.createRankingContext({contextSize, batchSize: rankingBatch, threads: runtime.threads}),
                {contextSize, batchSize: rankingBatch, maxQueue: options.maxQueue})
            : null;
        const projector = options.projector == null ? undefined : {...options.projector, decodes: runtime.imageDecodes};
        const vision = await ModelVision.load(runtime.llama, model, generation?.context ?? null, projector, options.projectorRefusal);
        return {model, generation, embedder, ranker, vision, contextSize};
    } catch (error) {
        await model.dispose();
        throw error;
    }
}

/**
 * node-llama-cpp's wrapper for the model (chatserve.json's template where that one passes its
 * checks). Where the model has a Jinja template of its own, the wrapper renders nothing: it says
 * how a thought is marked and, for a call the template does not show, how one looks. Its
 * complaints about the template (a raw stack on stderr for Hermes 2 Pro's) are then beside the
 * point, and kept quiet.
 */
function chatWrapperFor(model: LlamaModel, template: string | undefined, ownTemplate: boolean): ChatWrapper {
    if (template != null)
        try {
            return new JinjaTemplateChatWrapper({template, tokenizer: model.tokenizer});
        } catch {
            // Its sanity test failed: the template still renders the prompt (template/), the GGUF's wrapper says the rest.
        }
    if (!ownTemplate)
        return resolveChatWrapper(model);
    try {
        return resolveChatWrapper(model, {warningLogs: false, fallbackToOtherWrappersOnJinjaError: false});
    } catch {
        // node-llama-cpp's sanity test refused the template (Hermes 2 Pro's): its other wrappers, quietly.
        return resolveChatWrapper(model, {warningLogs: false, noJinja: true});
    }
}

/**
 * The generation context, its KV cache of the types asked for (node-llama-cpp's experimental
 * options, which pass them to llama.cpp as llama-server's -ctk/-ctv do). What llama.cpp would
 * refuse is refused first, saying why (kvCacheTypes.ts); a refusal of llama.cpp's own is only
 * "Failed to create context" from node-llama-cpp, so its log lines are added, as for the weights.
 */
async function createGenerationContext(
    runtime: LlamaRuntime, model: LlamaModel,
    {contextSize, sequences, kvCacheTypes: types = defaultKvCacheTypes, loraAdapters}: {contextSize: number, sequences: number, kvCacheTypes?: KvCacheTypes, loraAdapters: readonly LoraAdapter[]}
): Promise<LlamaContext> {
    const attention = (model.fileInfo.architectureMetadata as {attention?: {head_count?: number, key_length?: number, value_length?: number}}).attention;
    const width = attention?.head_count != null && attention.head_count > 0 ? model.embeddingVectorSize / attention.head_count : undefined;
    const refusal = kvCacheTypeRefusal(types, {
        flashAttention: runtime.flashAttention === "auto" ? "auto" : runtime.flashAttention ? "on" : "off",
        headWidths: {k: attention?.key_length ?? width ?? 0, v: attention?.value_length ?? width ?? 0}
    });
    if (refusal != null)
        throw new Error(refusal);
    for (const adapter of loraAdapters) {
        const adapterRefusal = await loraAdapterRefusal(adapter.path, model.fileInfo.metadata.general?.architecture);
        if (adapterRefusal != null)
            throw new Error(adapterRefusal);
    }
    const mark = runtime.errors.mark;
    return model.createContext({
        contextSize, sequences, threads: runtime.threads, flashAttention: runtime.flashAttention,
        ...(isDefaultKvCache(types) ? {} : {experimentalKvCacheKeyType: ggmlTypeName(types.k), experimentalKvCacheValueType: ggmlTypeName(types.v)}),
        ...(loraAdapters.length === 0 ? {} : {lora: {adapters: loraAdapters.map(({path, scale}) => ({filePath: path, scale}))}})
    }).catch(async (error: unknown) => {
        await nextTurn();
        const reasons = runtime.errors.since(mark);
        throw reasons.length === 0 ? error : new Error(`${(error as Error).message}: ${reasons.join("; ")}`, {cause: error});
    });
}
