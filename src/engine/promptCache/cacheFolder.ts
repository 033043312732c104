import fs from "node:fs/promises";
import path from "node:path";

/** What the disk tier writes: entries, half-written entries, and each layout folder's description. */
const isCacheFile = (name: string) => name.endsWith(".kvcache") || name.startsWith(".tmp-") || name === "layout.json";

/**
 * The prompt cache's folder as `chatserve cache` sees it, without a server: its layout folders and
 * their files. Only files the disk tier writes are counted or removed, so a --prompt-cache-dir
 * pointed at a folder of other things loses none of them.
 */
export async function cacheFolderFiles(dir: string): Promise<Array<{file: string, bytes: number}>> {
    const files: Array<{file: string, bytes: number}> = [];
    for (const layout of await fs.readdir(dir, {withFileTypes: true}).catch(() => []))
        if (layout.isDirectory())
            for (const name of await fs.readdir(path.join(dir, layout.name)).catch(() => []))
                if (isCacheFile(name)) {
                    const file = path.join(dir, layout.name, name);
                    const stat = await fs.stat(file).catch(() => undefined);
                    if (stat?.isFile() === true)
                        files.push({file, bytes: stat.size});
                }
    return files;
}

/** Removes every cache file, then the layout folders left empty; resolves to what was removed. */
export async function clearCacheFolder(dir: string): Promise<{files: number, bytes: number}> {
    const files = await cacheFolderFiles(dir);
    for (const {file} of files)
        await fs.rm(file, {force: true});
    for (const folder of new Set(files.map(({file}) => path.dirname(file))))
        await fs.rmdir(folder).catch(() => undefined);
    return {files: files.length, bytes: files.reduce((sum, {bytes}) => sum + bytes, 0)};
}
