import {GgufInsights, type GgufFileInfo, type Llama} from "node-llama-cpp";

/** Bytes of KV cache (and recurrent state) that `sequences` sequences of `contextSize` tokens each take. */
export type KvCacheEstimate = (contextSize: number, sequences: number) => number;

/** A batch size that is the same in every estimate: only the cells change between the two that are subtracted. */
const batchSize = 512;

/**
 * node-llama-cpp's estimate of a context's KV cache, from the GGUF header alone (before any
 * weights load). Its estimate knows each architecture's layout (per-layer KV heads, sliding-window
 * layers, layers that share a cache); it reports the KV cache only together with the output and
 * compute buffers (and a recurrent model's state), which do not depend on the number of cells:
 * `sequences` sequences of `contextSize` cells, less the same sequences of no cells, is the KV
 * cache alone. On a GPU backend the layers are counted as offloaded; the total is the same.
 * Undefined when the header does not let it estimate (the model is still served, with the
 * defaults that do not depend on memory).
 */
export async function kvCacheEstimate(info: GgufFileInfo, llama: Llama): Promise<KvCacheEstimate | undefined> {
    try {
        const insights = await GgufInsights.from(info, llama);
        const modelGpuLayers = llama.gpu === false ? 0 : insights.totalLayers;
        const contextBytes = (contextSize: number, sequences: number) => {
            const {cpuRam, gpuVram} = insights.estimateContextResourceRequirements({
                contextSize, sequences, modelGpuLayers, batchSize, includeGraphOverhead: false, flashAttention: true
            });
            return cpuRam + gpuVram;
        };
        const estimate: KvCacheEstimate = (contextSize, sequences) => contextBytes(contextSize, sequences) - contextBytes(0, sequences);
        return Number.isFinite(estimate(4096, 1)) ? estimate : undefined;
    } catch {
        return undefined;
    }
}
