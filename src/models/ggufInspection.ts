import fs from "node:fs/promises";
import {GgufFileType, readGgufFileInfo, type Llama} from "node-llama-cpp";
import {checkGgufBounds} from "./ggufBounds.js";
import {isLoadCheckedKey, refuseWhatLlamaAsserts} from "./ggufLoadChecks.js";
import {kvCacheEstimate, type KvCacheEstimate} from "./kvCacheEstimate.js";
import {refuseWhatMtmdAsserts} from "./projectorLoadChecks.js";
import {memoryEstimate, type MemoryEstimate} from "./memoryEstimate.js";
import type {ModelCapability} from "./modelDescriptor.js";
import {templateThinks} from "./templateThinking.js";

export type GgufSummary = {
    architecture: string | null,
    trainedContextLength: number | null,
    capabilities: ModelCapability[],
    /** How the weights are quantized, from `general.file_type` ("Q4_K_M", "F16"); absent when the header does not say. */
    quantization?: string,
    kvCache?: KvCacheEstimate,
    memory?: MemoryEstimate
};

/** Architectures that only embed (llama.cpp runs them as encoders with pooling). */
const encoderArchitectures = new Set(["bert", "nomic-bert", "jina-bert-v2", "t5encoder", "modern-bert", "neo-bert"]);

/** llama.h's LLAMA_POOLING_TYPE_RANK. */
const rankPooling = 4;

/** Big arrays not needed to describe a model: skipping them keeps a rescan cheap. */
const skippedKeys = ["tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"];

/** The fill-in-the-middle token ids, as llama.cpp's current and older GGUFs name them. */
const infillKeys = [["fim_pre_token_id", "fim_suf_token_id", "fim_mid_token_id"], ["prefix_token_id", "suffix_token_id", "middle_token_id"]];

/** A header read longer than this is a broken file, not a big one (a real header reads in milliseconds). */
const headerReadTimeoutMs = 10_000;

/**
 * Reads a GGUF header (metadata only, no tensor data) and says what the model can do.
 * Throws when the file is not a readable GGUF; the catalogue turns that into an "unavailable" entry.
 * With the server's `llama`, it also estimates the model's KV cache (see kvCacheEstimate.ts) and its
 * whole footprint in memory (memoryEstimate.ts; the tensor table is read for it).
 */
export async function inspectGguf(path: string, llama?: Llama): Promise<GgufSummary> {
    const info = await readCheckedHeader(path, {readTensorInfo: llama != null});
    const metadata = info.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
    const architecture = (info.metadata.general?.architecture as string | undefined) ?? null;
    if (architecture == null)
        throw new Error("the GGUF header has no general.architecture");
    // An adapter beside its model, as chatserve.json's `lora` expects it in the folder: listed as what it is, never loaded as a model.
    if ((info.metadata.general as {type?: unknown} | undefined)?.type === "adapter")
        throw new Error("it is a LoRA adapter, not a model: name it in a model's \"lora\" list in chatserve.json");

    const archMetadata = metadata[architecture];
    const contextLength = archMetadata?.context_length;
    const tokenizer = info.metadata.tokenizer;
    const chatTemplate = tokenizer?.chat_template;
    const ggml = tokenizer?.ggml as Record<string, unknown> | undefined;

    const capabilities: ModelCapability[] = [];
    const poolingType = archMetadata?.pooling_type;
    // A reranker scores (query, document) pairs through its classification head, and that is all it
    // is for: its "vector" is that score, and a Qwen3 reranker's chat is a yes/no judgement.
    const ranks = poolingType === rankPooling;
    if (ranks)
        capabilities.push("rerank");
    else if (encoderArchitectures.has(architecture) || (typeof poolingType === "number" && poolingType > 0))
        capabilities.push("embeddings");
    if (!encoderArchitectures.has(architecture) && !ranks) {
        capabilities.push("chat", "completion");
        if (rendersTools(chatTemplate, (tokenizer as Record<string, unknown> | undefined)?.["chat_template.tool_use"]))
            capabilities.push("tools");
        // As llama.cpp needs them for infill: all three tokens. It can also find them by their text in
        // the vocabulary, which this header read skips; once loaded, the model says (listedModel.ts).
        if (infillKeys.some((keys) => keys.every((key) => ggml?.[key] != null)))
            capabilities.push("fim");
        if (templateThinks(chatTemplate))
            capabilities.push("thinking");
    }

    const fileType = info.metadata.general?.file_type;
    return {
        architecture,
        trainedContextLength: typeof contextLength === "number" ? contextLength : null,
        capabilities,
        ...(typeof fileType === "number" ? {quantization: quantizationName(fileType)} : {}),
        kvCache: llama == null ? undefined : await kvCacheEstimate(info, llama),
        memory: llama == null ? undefined : await memoryEstimate(info, llama, {
            // A ranking context is an embedding context (llama.cpp's rank pooling) for the estimate.
            generates: capabilities.includes("chat"), embeds: capabilities.includes("embeddings") || ranks
        })
    };
}

/**
 * A vision projector's header, read as a model's is (bounds first, then node-llama-cpp's reader
 * with the same time limit): a 124-byte projector claiming 2^40 entries was parsed for ever at load,
 * growing the server by 1.7 GB in 45 s. Throws the reason a projector cannot be loaded.
 */
export async function inspectProjector(path: string): Promise<void> {
    const info = await readCheckedHeader(path, {readTensorInfo: true});
    const architecture = info.metadata.general?.architecture as string | undefined;
    // llama.cpp's converter writes every projector (mmproj) as architecture "clip".
    if (architecture !== "clip")
        throw new Error(`it is not a vision projector (its general.architecture is ${architecture == null ? "missing" : `'${architecture}'`}, not 'clip')`);
    if ((info.tensorInfo?.length ?? 0) === 0)
        throw new Error("it holds no tensors");
    refuseWhatMtmdAsserts((info.metadata as {clip?: Parameters<typeof refuseWhatMtmdAsserts>[0]}).clip, info.tensorInfo!);
}

/**
 * The header of a GGUF whose lengths (ggufBounds.ts) and load-time asserts (ggufLoadChecks.ts)
 * were checked first, read by node-llama-cpp within `headerReadTimeoutMs`.
 */
async function readCheckedHeader(path: string, {readTensorInfo}: {readTensorInfo: boolean}) {
    const file = await fs.open(path, "r");
    try {
        refuseWhatLlamaAsserts(await checkGgufBounds(file, (await file.stat()).size, isLoadCheckedKey));
    } finally {
        await file.close();
    }
    return await readGgufFileInfo(path, {
        readTensorInfo, logWarnings: false, ignoreKeys: skippedKeys, signal: AbortSignal.timeout(headerReadTimeoutMs)
    });
}

/** llama.cpp's file type as people write it in file names: MOSTLY_Q4_K_M → Q4_K_M, ALL_F32 → F32. */
export function quantizationName(fileType: number): string {
    const name = GgufFileType[fileType] as string | undefined;
    return name == null ? `file type ${fileType}` : name.replace(/^(MOSTLY|ALL)_/, "");
}

/**
 * Whether a model's templates render tools: a tool list, or calls and their results (DeepSeek R1's
 * and V3.1's write calls but list no tools; llama-server serves tools to them), in the template or
 * in its `tool_use` variant (Hermes 2 Pro and 3, Command R+ keep tools there only).
 */
function rendersTools(...templates: unknown[]): boolean {
    return templates.some((template) => typeof template === "string" && /\b(tools|tool_calls)\b/.test(template));
}
