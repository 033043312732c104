import {readGgufFileInfo} from "node-llama-cpp";
import type {ModelCapability} from "../protocol/models.js";

export type GgufSummary = {
    architecture: string | null,
    trainedContextLength: number | null,
    capabilities: ModelCapability[]
};

/** Architectures that only embed (llama.cpp runs them as encoders with pooling). */
const encoderArchitectures = new Set(["bert", "nomic-bert", "jina-bert-v2", "t5encoder", "modern-bert", "neo-bert"]);

/** Big arrays not needed to describe a model: skipping them keeps a rescan cheap. */
const skippedKeys = ["tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"];

/**
 * Reads a GGUF header (metadata only, no tensor data) and says what the model can do.
 * Throws when the file is not a readable GGUF; the catalogue turns that into an "unavailable" entry.
 */
export async function inspectGguf(path: string): Promise<GgufSummary> {
    const info = await readGgufFileInfo(path, {readTensorInfo: false, logWarnings: false, ignoreKeys: skippedKeys});
    const metadata = info.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
    const architecture = (info.metadata.general?.architecture as string | undefined) ?? null;
    if (architecture == null)
        throw new Error("the GGUF header has no general.architecture");

    const archMetadata = metadata[architecture];
    const contextLength = archMetadata?.context_length;
    const tokenizer = info.metadata.tokenizer;
    const chatTemplate = tokenizer?.chat_template;
    const ggml = tokenizer?.ggml as Record<string, unknown> | undefined;

    const capabilities: ModelCapability[] = [];
    const poolingType = archMetadata?.pooling_type;
    if (encoderArchitectures.has(architecture) || (typeof poolingType === "number" && poolingType > 0))
        capabilities.push("embeddings");
    if (!encoderArchitectures.has(architecture)) {
        capabilities.push("chat", "completion");
        if (typeof chatTemplate === "string" && /\btools\b/.test(chatTemplate))
            capabilities.push("tools");
        if (ggml?.fim_pre_token_id != null || ggml?.prefix_token_id != null)
            capabilities.push("fim");
    }

    return {
        architecture,
        trainedContextLength: typeof contextLength === "number" ? contextLength : null,
        capabilities
    };
}
