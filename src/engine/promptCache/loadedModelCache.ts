import type {Logger} from "pino";
import type {GenerationParts} from "../llamaModelParts.js";
import type {LlamaRuntime} from "../llamaRuntime.js";
import {fileIdentity} from "./modelLayout.js";
import type {ModelPromptCache} from "./modelPromptCache.js";
import type {PromptCache} from "./promptCache.js";

/**
 * A loading model's handle on the server's prompt cache, its layout read from what was loaded: the
 * model file's identity now (a file replaced later is another layout), the context's real cells per
 * sequence and attention, the llama.cpp build, the projector. None for a model without a generation
 * context, nor for one whose caches cannot be cut at any token (hybrid, recurrent, sliding-window
 * models keep state snapshots that a saved state does not carry); a cache it cannot use is no failure.
 */
export async function promptCacheForModel(
    cache: PromptCache | undefined, runtime: LlamaRuntime, generation: GenerationParts | null,
    files: {path: string, projector?: string, kvCacheTypes?: unknown, loraAdapters?: ReadonlyArray<{path: string, scale: number}>}, logger?: Logger
): Promise<ModelPromptCache | null> {
    if (cache == null || !cache.enabled || generation == null || generation.sequences[0]?.needsCheckpoints !== false)
        return null;
    try {
        const {context} = generation;
        return await cache.forModel({
            model: await fileIdentity(files.path),
            ...(files.projector == null ? {} : {projector: await fileIdentity(files.projector)}),
            contextSize: context.contextSize,
            flashAttention: context.flashAttention,
            llamaCpp: `${runtime.llama.llamaCppRelease.repo}@${runtime.llama.llamaCppRelease.release} ${runtime.llama.buildType}`,
            gpu: runtime.llama.gpu,
            // The KV cache's types (llama-server's -ctk/-ctv), when set: f16 states are not q8_0 ones.
            ...(files.kvCacheTypes == null && files.loraAdapters == null ? {} : {kvSettings: {
                ...(files.kvCacheTypes == null ? {} : {cacheTypes: JSON.stringify(files.kvCacheTypes)}),
                // LoRA adapters change every layer's keys and values: a state is valid only under the same files at the same scales.
                ...(files.loraAdapters == null ? {} : {lora: JSON.stringify(await Promise.all(files.loraAdapters.map(async ({path, scale}) => ({file: await fileIdentity(path), scale}))))})
            }})
        }, files.path);
    } catch (error) {
        logger?.warn({event: "prompt_cache_unavailable", err: error}, `no prompt cache for ${files.path}`);
        return null;
    }
}
