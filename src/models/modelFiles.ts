import type {Dirent} from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import {isProjectorFile, pairProjector} from "./projectorPairing.js";

/** One model's files as found on disk, before its header is read. */
export type ModelFileGroup = {
    id: string,
    /** The file llama.cpp opens: the only file, or part 1 of a split model. */
    path: string,
    files: string[],
    /** Split parts the name promises but the folder lacks. */
    missingParts: number,
    /** The vision projector found for it in its folder (models/projectorPairing.ts). */
    projector?: string
};

const splitPattern = /^(.*)-(\d{5})-of-(\d{5})$/;

/**
 * Lists the models in a folder: every `*.gguf` there and in its direct subfolders.
 * A split model (`name-00001-of-00003.gguf` …) is one model named `name`.
 * Multimodal projector files (`mmproj*.gguf`) are companions of a model, not models: each model
 * gets the one that pairs with it, if any.
 * A name that appears twice is disambiguated by its subfolder (`sub/name`).
 */
export async function findModelFiles(modelsDir: string): Promise<ModelFileGroup[]> {
    const files = [...await listGguf(modelsDir), ...(await Promise.all(
        // A subfolder this user may not read (lost+found on a models disk) holds nothing to serve.
        (await listSubfolders(modelsDir)).map((folder) => listGguf(folder).catch((error: NodeJS.ErrnoException) =>
            error.code === "EACCES" || error.code === "EPERM" ? [] : Promise.reject(error)))
    )).flat()];

    const groups = new Map<string, {files: string[], parts: number, folder: string, name: string}>();
    const projectors = files.filter(isProjectorFile);
    for (const file of files) {
        const stem = path.basename(file, path.extname(file));
        if (isProjectorFile(file))
            continue;

        const split = splitPattern.exec(stem);
        const name = split?.[1] ?? stem;
        // A split model and a single file of the same name are different models.
        const key = `${path.dirname(file)}\0${name}\0${split ? "split" : "single"}`;
        const group = groups.get(key) ?? {files: [], parts: split ? Number(split[3]) : 1, folder: path.dirname(file), name};
        group.files.push(file);
        groups.set(key, group);
    }

    const taken = new Set<string>();
    const result: ModelFileGroup[] = [];
    const topLevelFirst = [...groups.values()].sort((a, b) =>
        Number(a.folder !== path.resolve(modelsDir)) - Number(b.folder !== path.resolve(modelsDir)) || a.name.localeCompare(b.name));
    for (const group of topLevelFirst) {
        const preferred = taken.has(group.name) ? `${path.basename(group.folder)}/${group.name}` : group.name;
        // A split model and a single file of one name in one subfolder: the second gets a number.
        let id = preferred;
        for (let count = 2; taken.has(id); count++)
            id = `${preferred}-${count}`;
        taken.add(id);
        group.files.sort();
        const projector = pairProjector(group.files[0]!, projectors, modelsDir);
        result.push({
            id, path: group.files[0]!, files: group.files, missingParts: Math.max(0, group.parts - group.files.length),
            ...(projector == null ? {} : {projector})
        });
    }
    return result;
}

async function listGguf(folder: string): Promise<string[]> {
    const entries = await readFolder(folder);
    const files = await Promise.all(entries
        .filter((entry) => entry.name.toLowerCase().endsWith(".gguf"))
        .map(async (entry) => await kindOf(folder, entry) === "file" ? path.resolve(folder, entry.name) : null));
    return files.filter((file) => file != null);
}

async function listSubfolders(folder: string): Promise<string[]> {
    const entries = await readFolder(folder);
    const folders = await Promise.all(entries
        .filter((entry) => !entry.name.startsWith("."))
        .map(async (entry) => await kindOf(folder, entry) === "folder" ? path.resolve(folder, entry.name) : null));
    return folders.filter((subfolder) => subfolder != null);
}

const momentaryFailures = new Set(["EMFILE", "ENFILE", "EAGAIN", "ENOMEM"]);

/**
 * A failure that says nothing about the file (out of file handles, memory): the scan fails and the
 * catalogue stays as it was. Any other (gone, unreadable, a dangling link) means the file is no model.
 */
export function isMomentaryFailure(error: NodeJS.ErrnoException): boolean {
    return momentaryFailures.has(error.code ?? "");
}

/** Symbolic links count as what they point to: people link models in from a download folder. */
async function kindOf(folder: string, entry: Dirent): Promise<"file" | "folder" | "other"> {
    if (entry.isSymbolicLink()) {
        // A dangling or looping link, or one into a folder this user may not read, is not a model.
        const target = await fs.stat(path.join(folder, entry.name)).catch((error: NodeJS.ErrnoException) => {
            if (isMomentaryFailure(error))
                throw error;
            return null;
        });
        return target?.isFile() ? "file" : target?.isDirectory() ? "folder" : "other";
    }
    return entry.isFile() ? "file" : entry.isDirectory() ? "folder" : "other";
}

async function readFolder(folder: string) {
    try {
        return await fs.readdir(folder, {withFileTypes: true});
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
            return [];
        throw error;
    }
}
