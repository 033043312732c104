import {constants} from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * The files chatserve.json names (`chat_template`, `mmproj`) and how they are read. The settings
 * file sits in the models folder, and what it names is meant to sit there too: a path through `..`,
 * an absolute one or a symlink that leads out of the folder is refused unless the server was started
 * with --allow-paths-outside-models, so whoever can write the models folder (a shared volume, a
 * pulled repository) cannot make the server read other files of its user and serve them as a template.
 */

/** Chat templates run to tens of KB (Qwen's with tools: 10 KB); a MiB is generous, and bounds what one rescan reads. */
export const maxTemplateBytes = 1024 * 1024;

export type SettingsPathPolicy = {modelsDir: string, allowOutside: boolean};

/** `file` as written in the settings → its real path (symlinks resolved); throws the reason it cannot be used. */
export async function resolveSettingsPath(file: string, policy: SettingsPathPolicy): Promise<string> {
    const real = await fs.realpath(path.resolve(policy.modelsDir, file)).catch((error: NodeJS.ErrnoException) => {
        throw new Error(error.code === "ENOENT" ? `${file} does not exist` : `cannot read ${file} (${error.message})`);
    });
    if (!policy.allowOutside) {
        const folder = await fs.realpath(policy.modelsDir);
        const relative = path.relative(folder, real);
        if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative))
            throw new Error(`${file} lies outside the models folder (it is ${real}); move it into ${folder}, or start chatserve with --allow-paths-outside-models`);
    }
    return real;
}

/**
 * A template's text: a regular file of at most maxTemplateBytes. Opened without blocking, so a FIFO
 * named as a template cannot hold the rescan forever, and checked on the open file, so what is read
 * is what was checked.
 */
export async function readTemplateFile(realPath: string, file: string): Promise<string> {
    const handle = await fs.open(realPath, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
        const stat = await handle.stat();
        if (!stat.isFile())
            throw new Error(`${file} is not a regular file`);
        if (stat.size > maxTemplateBytes)
            throw new Error(`${file} holds ${stat.size} bytes, more than a chat template's ${maxTemplateBytes}`);
        return await handle.readFile("utf8");
    } finally {
        await handle.close();
    }
}

/** A projector named in the settings: an existing regular file, within the policy. */
export async function resolveProjectorPath(file: string, policy: SettingsPathPolicy): Promise<string> {
    const real = await resolveSettingsPath(file, policy);
    if (!(await fs.stat(real)).isFile())
        throw new Error(`${file} is not a regular file`);
    return real;
}
