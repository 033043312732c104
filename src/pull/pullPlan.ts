import path from "node:path";
import {ggufFileQuantNames} from "node-llama-cpp";
import {formatBytes} from "../models/byteSize.js";
import type {HubFile} from "./hubListing.js";

/** What to download from a repository: the model's files and, for a vision model, its projector. */
export type HubPullPlan = {
    /** The only file, or every part of a split model in order (part 1 first). */
    model: HubFile[],
    /** The repository's vision projector (`mmproj*.gguf`), downloaded beside the model. */
    projector?: HubFile,
    /** The quantization its name says ("Q4_K_M"), when it says one. */
    quant?: string
};

/** A model of the repository: one file, or the parts of a split one. */
type ModelGroup = {name: string, folder: string, parts: HubFile[], partCount: number, quant?: string};

const splitPattern = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;
/** Longest first, so Q4_K_M is found before Q4_K. */
const knownQuants = [...ggufFileQuantNames].sort((a, b) => b.length - a.length);
/** Projectors in the order a vision model is best served by: llama.cpp's own default is F16. */
const projectorPreference = ["f16", "bf16", "q8_0", "f32"];
const defaultQuant = "Q4_K_M";

/**
 * Picks the files to pull: by quantization (`hf:user/repo:Q4_K_M`; without one, the only model,
 * else Q4_K_M) or by file (`hf:user/repo/file.gguf`). Throws a message that lists what the
 * repository has, so the next command can be copied from it.
 */
export function planHubPull(files: readonly HubFile[], want: {quant?: string} | {file: string}, repoLabel: string): HubPullPlan {
    const ggufs = files.filter((file) => /\.gguf$/i.test(file.path));
    const projectors = ggufs.filter((file) => isProjector(file.path));
    const groups = modelGroups(ggufs.filter((file) => !isProjector(file.path)));
    if (groups.length === 0)
        throw new Error(`${repoLabel} holds no GGUF model` + (ggufs.length > 0 ? " (only a vision projector)" : "") +
            `; chatserve serves GGUF files: look for a repository of this model whose name ends in -GGUF` +
            (files.length > 0 ? `\nIts files: ${files.slice(0, 12).map((file) => file.path).join(", ")}${files.length > 12 ? ", …" : ""}` : ""));

    const chosen = "file" in want ? byFile(groups, projectors, want.file, repoLabel) : byQuant(groups, want.quant, repoLabel);
    if (chosen.parts.length < chosen.partCount)
        throw new Error(`${repoLabel} holds only ${chosen.parts.length} of the ${chosen.partCount} parts of ${chosen.name}: it cannot be served`);
    const projector = pickProjector(projectors, chosen.folder);
    return {model: chosen.parts, ...(projector != null ? {projector} : {}), ...(chosen.quant != null ? {quant: chosen.quant} : {})};
}

function byQuant(groups: ModelGroup[], quant: string | undefined, repoLabel: string): ModelGroup {
    if (quant == null) {
        if (groups.length === 1)
            return groups[0]!;
        const usual = groups.filter((group) => namesQuant(group.name, defaultQuant));
        if (usual.length === 1)
            return usual[0]!;
        throw new Error(`${repoLabel} holds ${groups.length} models: name one by its quantization or file.\n${listing(groups, repoLabel)}`);
    }
    const matches = groups.filter((group) => namesQuant(group.name, quant));
    if (matches.length === 1)
        return matches[0]!;
    if (matches.length === 0)
        throw new Error(`${repoLabel} has no ${quant} file.\n${listing(groups, repoLabel)}`);
    throw new Error(`${repoLabel} has ${matches.length} ${quant} files: name one by its file.\n${listing(matches, repoLabel)}`);
}

function byFile(groups: ModelGroup[], projectors: readonly HubFile[], file: string, repoLabel: string): ModelGroup {
    const lower = file.toLowerCase();
    const found = groups.find((group) => group.parts.some((part) => part.path === file))
        ?? groups.find((group) => group.parts.some((part) => part.path.toLowerCase() === lower));
    if (found != null)
        return found;
    if (projectors.some((projector) => projector.path.toLowerCase() === lower))
        throw new Error(`${file} is a vision projector, not a model: pull the model, and its projector comes beside it`);
    throw new Error(`${repoLabel} has no file ${file}.\n${listing(groups, repoLabel)}`);
}

/** "It has:" and one line per model: its quantization, its file, its size; then how to pull one. */
function listing(groups: readonly ModelGroup[], repoLabel: string): string {
    const lines = groups.map((group) => {
        const size = group.parts.every((part) => part.size != null) ? `  ${formatBytes(group.parts.reduce((sum, part) => sum + part.size!, 0))}` : "";
        const parts = group.partCount > 1 ? ` (${group.partCount} parts)` : "";
        return `  ${(group.quant ?? "-").padEnd(10)} ${group.parts[0]!.path}${parts}${size}`;
    });
    const quants = [...new Set(groups.map((group) => group.quant).filter((quant) => quant != null))];
    const example = quants.length > 0 && quants.length === groups.length
        ? `${repoLabel}:${quants.includes(defaultQuant) ? defaultQuant : quants[0]}`
        : `${repoLabel}/${groups[0]!.parts[0]!.path}`;
    return `It has:\n${lines.join("\n")}\nPull one with: chatserve pull ${example}`;
}

function modelGroups(files: readonly HubFile[]): ModelGroup[] {
    const groups = new Map<string, ModelGroup>();
    for (const file of files) {
        const folder = path.posix.dirname(file.path);
        const base = path.posix.basename(file.path);
        const split = splitPattern.exec(base);
        const name = split != null ? split[1]! : base.replace(/\.gguf$/i, "");
        const key = `${folder}\0${name}\0${split != null ? "split" : "single"}`;
        const quant = quantOf(name);
        const group = groups.get(key) ?? {name, folder, parts: [], partCount: split != null ? Number(split[3]) : 1, ...(quant != null ? {quant} : {})};
        group.parts.push(file);
        groups.set(key, group);
    }
    for (const group of groups.values())
        group.parts.sort((a, b) => a.path.localeCompare(b.path));
    return [...groups.values()].sort((a, b) => a.parts[0]!.path.localeCompare(b.parts[0]!.path));
}

/** The quantization a file name says, as a word of it: "model-Q4_K_M" says Q4_K_M, "model-IQ4_XS" does not say Q4_XS. */
function quantOf(name: string): string | undefined {
    return knownQuants.find((quant) => namesQuant(name, quant));
}

function namesQuant(name: string, quant: string): boolean {
    const escaped = quant.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return new RegExp(`(^|[^a-z0-9])${escaped}($|[^a-z0-9_])`, "i").test(name);
}

/** As the models folder counts them: any .gguf whose name contains "mmproj". */
function isProjector(file: string): boolean {
    return path.posix.basename(file).toLowerCase().includes("mmproj");
}

/** The projector beside the model (else at the repository's top), in llama.cpp's preferred precision. */
function pickProjector(projectors: readonly HubFile[], folder: string): HubFile | undefined {
    const near = projectors.filter((file) => path.posix.dirname(file.path) === folder);
    const candidates = near.length > 0 ? near : projectors.filter((file) => path.posix.dirname(file.path) === ".");
    const rank = (file: HubFile) => {
        const index = projectorPreference.findIndex((precision) => namesQuant(path.posix.basename(file.path, ".gguf"), precision));
        return index < 0 ? projectorPreference.length : index;
    };
    return [...candidates].sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path))[0];
}
