import {GgmlType, GgufInsights, type GgufFileInfo, type Llama} from "node-llama-cpp";
import {bytesPerElement, defaultKvCacheTypes, type KvCacheTypes} from "../engine/kvCacheTypes.js";

/**
 * Bytes of KV cache (and recurrent state) that `sequences` sequences of `contextSize` tokens each
 * take, its keys and values stored as `types` (absent: f16, llama.cpp's default).
 */
export type KvCacheEstimate = (contextSize: number, sequences: number, types?: KvCacheTypes) => number;

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
 * defaults that do not depend on memory). A recurrent model's state does not grow with the
 * cells, so it is left out of the keys and values a cache type changes.
 */
export async function kvCacheEstimate(info: GgufFileInfo, llama: Llama): Promise<KvCacheEstimate | undefined> {
    try {
        const insights = await GgufInsights.from(info, llama);
        const modelGpuLayers = llama.gpu === false ? 0 : insights.totalLayers;
        const contextBytes = (contextSize: number, sequences: number, kvCacheKeyType: GgmlType) => {
            const {cpuRam, gpuVram} = insights.estimateContextResourceRequirements({
                contextSize, sequences, modelGpuLayers, batchSize, includeGraphOverhead: false, flashAttention: true, kvCacheKeyType, kvCacheValueType: GgmlType.F16
            });
            return cpuRam + gpuVram;
        };
        const cacheBytes = (contextSize: number, sequences: number, keyType: GgmlType) =>
            contextBytes(contextSize, sequences, keyType) - contextBytes(0, sequences, keyType);
        // Its keys' and values' elements, apart: with f32 keys the cache grows by 2 bytes a key
        // element. Only one-element types are asked for (kvCacheTypes.ts says why).
        const estimate: KvCacheEstimate = (contextSize, sequences, types = defaultKvCacheTypes) => {
            const f16 = cacheBytes(contextSize, sequences, GgmlType.F16);
            if (types.k === "f16" && types.v === "f16")
                return f16;
            const keys = (cacheBytes(contextSize, sequences, GgmlType.F32) - f16) / 2;
            const values = f16 / 2 - keys;
            return Math.ceil(keys * bytesPerElement(types.k) + values * bytesPerElement(types.v));
        };
        return Number.isFinite(estimate(4096, 1)) ? estimate : undefined;
    } catch {
        return undefined;
    }
}
