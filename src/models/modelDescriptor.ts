import type {KvCacheEstimate} from "./kvCacheEstimate.js";
import type {MemoryEstimate} from "./memoryEstimate.js";

/**
 * What a model can serve. Its GGUF header tells (ggufInspection.ts) "chat" and "completion" (it
 * generates: not an encoder), "tools" (its chat template renders tools), "embeddings" and "fim" (it
 * has the fill-in-the-middle tokens), "thinking" (its chat template writes thoughts: templateThinking.ts);
 * "rerank" (its pooling is `rank`: a reranker, which serves nothing else);
 * "vision" is a chat model served with a projector. /v1/models
 * lists them under these very names.
 */
export type ModelCapability = "chat" | "completion" | "tools" | "embeddings" | "rerank" | "fim" | "vision" | "thinking";

/** What the catalogue knows about one model on disk, read from its GGUF header without loading weights. */
export type ModelDescriptor = {
    /** The file name without `.gguf` (and without the `-00001-of-00003` part of a split model). */
    id: string,
    /** The file to load: the only file, or the first part of a split model. */
    path: string,
    /** All files of the model (several for a split model). */
    files: string[],
    sizeBytes: number,
    /** Unix seconds: the newest modification time among its files. */
    modifiedAt: number,
    architecture: string | null,
    /** The context the model was trained with, when its header says. */
    trainedContextLength: number | null,
    capabilities: ModelCapability[],
    /** How the weights are quantized ("Q4_K_M", "F16"), from the header's `general.file_type`. */
    quantization?: string,
    /** The KV cache a context of this model takes, estimated from the header; absent when unknown. */
    kvCache?: KvCacheEstimate,
    /** What the model takes in memory once loaded (weights, contexts, buffers), estimated from the header; absent when unknown. */
    memory?: MemoryEstimate,
    /** The vision projector (mmproj GGUF) found beside it (models/projectorPairing.ts). */
    projector?: string,
    /** Why the paired projector cannot be loaded (its header failed the checks a model's gets): the model then serves text only. */
    projectorError?: string,
    /** Set when the file cannot be served; the model is listed as unavailable with this reason. */
    error?: string
};
