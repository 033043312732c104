import {createHash} from "node:crypto";
import type {ListedModel} from "../../models/listedModel.js";
import {totalBytes} from "../../models/memoryEstimate.js";
import {ollamaName} from "./modelNames.js";

/**
 * A listed model (models/listedModel.ts) as Ollama's discovery endpoints describe one: `/api/tags`'
 * entries, `/api/ps`' and `/api/show`'s answer. Every figure is chatserve's own: the context is the
 * one the model is (or will be) served with, not the one it was trained with, because clients size
 * their prompts by it (Copilot reads `<arch>.context_length`, Continue `num_ctx`).
 */

export type OllamaDetails = {
    parent_model: string, format: "gguf", family: string, families: string[] | null,
    parameter_size: string, quantization_level: string
};

export type OllamaTag = {name: string, model: string, modified_at: string, size: number, digest: string, details: OllamaDetails};

export type OllamaRunning = Omit<OllamaTag, "modified_at"> & {expires_at: string, size_vram: number, context_length: number};

/** Ollama's capability names: chatserve's `chat` is Ollama's `completion`, `fim` its `insert`, `embeddings` its `embedding`. */
export function ollamaCapabilities(model: ListedModel): string[] {
    const names: Record<string, string> = {chat: "completion", tools: "tools", vision: "vision", fim: "insert", embeddings: "embedding", thinking: "thinking"};
    const mapped = model.capabilities.map((capability) => names[capability]).filter((name): name is string => name != null);
    return [...new Set(mapped)];
}

export function toOllamaTag(model: ListedModel): OllamaTag {
    const name = ollamaName(model.id);
    return {
        name, model: name,
        modified_at: new Date(model.modifiedAt * 1000).toISOString(),
        size: model.sizeBytes,
        digest: digestOf(model),
        details: detailsOf(model)
    };
}

/** A loaded model as `/api/ps` lists it: what it takes in memory, of which on the GPU, and until when it stays. */
export function toOllamaRunning(model: ListedModel): OllamaRunning {
    const {modified_at: _modifiedAt, ...tag} = toOllamaTag(model);
    return {
        ...tag,
        size: totalBytes(model.memory),
        // No timer: it stays until its memory is needed, or for ever. Ollama writes a far-off time for a model kept for ever.
        expires_at: new Date(model.expiresAtMs ?? Date.UTC(2318, 0, 1)).toISOString(),
        size_vram: model.memory.vram,
        context_length: model.contextLength ?? 0
    };
}

export function detailsOf(model: ListedModel): OllamaDetails {
    const family = model.architecture ?? "";
    return {
        parent_model: "", format: "gguf", family, families: family === "" ? null : [family],
        // The header's parameter count is not read by the catalogue; Ollama leaves it empty when unknown too.
        parameter_size: "",
        quantization_level: model.quantization ?? ""
    };
}

/**
 * Ollama's digest is its manifest's SHA-256. chatserve has no manifest, and hashing gigabytes per
 * listing is out of the question: this one is a SHA-256 of the file's identity (id, size,
 * modification time), so it changes when the file does, which is what clients compare it for.
 */
function digestOf(model: ListedModel): string {
    return createHash("sha256").update(`${model.id}\0${model.sizeBytes}\0${model.modifiedAt}`).digest("hex");
}
