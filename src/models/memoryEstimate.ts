import {GgufInsights, type GgufFileInfo, type Llama} from "node-llama-cpp";

/** Bytes in RAM and in GPU memory (VRAM), as node-llama-cpp and llama.cpp split them. */
export type MemoryFootprint = {ram: number, vram: number};

/** What a model takes once loaded with `sequences` sequences of `contextSize` tokens each: weights, contexts, buffers. */
export type MemoryEstimate = (contextSize: number, sequences: number) => MemoryFootprint;

export const noMemory: MemoryFootprint = {ram: 0, vram: 0};

export function totalBytes(footprint: MemoryFootprint): number {
    return footprint.ram + footprint.vram;
}

/** What chatserve creates beside the weights (llamaLoadedModel.ts): a generation context, an embedding context, or both. */
export type ModelUses = {generates: boolean, embeds: boolean};

/** node-llama-cpp's default batch when none is given (chatserve gives none): the estimate must assume the same. */
const batchSize = (contextSize: number, sequences: number) => Math.min(contextSize * sequences, 512);

/**
 * node-llama-cpp's estimate of a model's whole footprint, from its GGUF header and tensor table
 * (before any weights load): the weights (`GgufInsights.estimateModelResourceRequirements`, every
 * layer offloaded on a GPU backend), plus each context chatserve creates for it
 * (`estimateContextResourceRequirements`: KV cache or recurrent state, output buffer, compute graph).
 * The registry weighs it against the memory budget before loading. The header read skips the
 * vocabulary's token list (it is large and slow to read), but the output buffer's size depends on the
 * vocabulary's size: the token-embedding tensor says it. Undefined when the header does not let
 * node-llama-cpp estimate; the registry then counts the file's size and the KV cache.
 */
export async function memoryEstimate(info: GgufFileInfo, llama: Llama, uses: ModelUses): Promise<MemoryEstimate | undefined> {
    try {
        withVocabularySize(info);
        const insights = await GgufInsights.from(info, llama);
        const gpuLayers = llama.gpu === false ? 0 : insights.totalLayers;
        const weights = insights.estimateModelResourceRequirements({gpuLayers});
        if (!(weights.cpuRam + weights.gpuVram > 0))
            return undefined;
        const context = (contextSize: number, sequences: number, isEmbeddingContext: boolean) => insights.estimateContextResourceRequirements({
            contextSize, sequences, modelGpuLayers: gpuLayers, batchSize: batchSize(contextSize, sequences), isEmbeddingContext,
            flashAttention: true, includeGraphOverhead: true
        });
        const estimate: MemoryEstimate = (contextSize, sequences) => {
            let ram = weights.cpuRam;
            let vram = weights.gpuVram;
            for (const [used, embedding, count] of [[uses.generates, false, sequences], [uses.embeds, true, 1]] as const) {
                if (!used)
                    continue;
                const buffers = context(contextSize, count, embedding);
                ram += buffers.cpuRam;
                vram += buffers.gpuVram;
            }
            return {ram: Math.ceil(ram), vram: Math.ceil(vram)};
        };
        const probe = estimate(4096, 1);
        return Number.isFinite(probe.ram) && Number.isFinite(probe.vram) ? estimate : undefined;
    } catch {
        return undefined;
    }
}

/** The vocabulary's size where the header read skipped the token list: the token-embedding tensor's second dimension. */
function withVocabularySize(info: GgufFileInfo): void {
    const metadata = info.architectureMetadata as {vocab_size?: number};
    if (metadata.vocab_size != null)
        return;
    const embeddings = info.fullTensorInfo?.find((tensor) => tensor.name === "token_embd.weight");
    const size = embeddings?.dimensions[1];
    if (size != null)
        metadata.vocab_size = Number(size);
}
