import {createHash} from "node:crypto";
import fs from "node:fs/promises";

/** A file as the cache knows it: a file replaced or rewritten in place has another size or time. */
export type FileIdentity = {path: string, bytes: number, modifiedMs: number};

/**
 * Everything a saved KV state is only valid under: the model file itself, the llama.cpp build that
 * wrote it, and each setting that changes what the cells hold or how they are laid out (the
 * sequence's cells, flash attention, which transposes V, the KV cache types, the projector that
 * encoded any image in it). `kvSettings` is where a setting added later goes (its name and value);
 * a state saved under any other value is never found.
 */
export type ModelLayoutSettings = {
    model: FileIdentity,
    projector?: FileIdentity,
    contextSize: number,
    flashAttention: "auto" | boolean,
    llamaCpp: string,
    gpu: string | false,
    kvSettings?: Record<string, string | number | boolean>
};

export type ModelLayout = {
    /** SHA-256 of the settings (hex, 32 characters): the disk tier's folder, every entry's seed. */
    key: string,
    settings: ModelLayoutSettings
};

export async function fileIdentity(file: string): Promise<FileIdentity> {
    const real = await fs.realpath(file);
    const stat = await fs.stat(real);
    return {path: real, bytes: stat.size, modifiedMs: Math.trunc(stat.mtimeMs)};
}

export function modelLayout(settings: ModelLayoutSettings): ModelLayout {
    const sorted = JSON.stringify(settings, (_key, value: unknown) => value != null && typeof value === "object" && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
        : value);
    return {key: createHash("sha256").update(sorted).digest("hex").slice(0, 32), settings};
}

/**
 * The tag a cache partition's entries carry: a hash of it (itself the SHA-256 of an API key), so that
 * no key, nor the partition the HTTP layer derives from it, is ever written to disk; "" when shared.
 */
export function partitionTag(partition: string | undefined): string {
    return partition == null ? "" : createHash("sha256").update(`chatserve prompt cache\u0000${partition}`).digest("hex").slice(0, 32);
}
