import {createHash} from "node:crypto";
import {createReadStream} from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import {createModelDownloader, type ModelDownloader} from "node-llama-cpp";
import {inspectGguf, inspectProjector} from "../models/ggufInspection.js";
import {localFileName} from "./localFileName.js";

/** One thing to download: a file, or part 1 of a split model (node-llama-cpp fetches every part). */
export type DownloadItem = {
    url: string,
    /** The name it lands under (part 1's name for a split model; the other parts are named like it). */
    fileName: string,
    /** What the source says of each file, by name, to check the download against. */
    expected?: ReadonlyMap<string, {size?: number, sha256?: string}>,
    /** The model itself (its header must read, and pass the load checks, before it lands); false: its projector (checked as one). */
    model: boolean
};

export type DownloadOptions = {
    /** The folder the files land in (the models folder or one of its subfolders). */
    folder: string,
    /** The model first, then its projector. */
    items: readonly DownloadItem[],
    /** The hub's URL, so node-llama-cpp sends the hub's access token to it (HF_TOKEN) and to no other host. */
    hubEndpoint: string,
    signal?: AbortSignal,
    onStart?(state: {totalBytes: number, downloadedBytes: number}): void,
    onProgress?(state: {totalBytes: number, downloadedBytes: number}): void,
    onVerify?(): void
};

/** The files now in the folder, the model's first (part 1 at the head); `alreadyThere` when nothing had to be downloaded. */
export type DownloadResult = {files: string[], totalBytes: number, alreadyThere: boolean};

/**
 * Downloads into `.partial/` under the destination folder, where the catalogue never looks (it reads
 * a folder's `*.gguf` files and the files of its direct subfolders), then checks every file (size,
 * the hub's SHA-256, a readable GGUF header) and only then moves them into place with rename(2):
 * a running server sees a whole model or none of it. The projector lands first and part 1 of a split
 * model last, so a model is never listed before its projector is beside it. An interrupted download
 * stays in `.partial/` (node-llama-cpp's downloader, ipull, keeps its progress in `*.ipull` files)
 * and the next pull of the same thing resumes it.
 */
export async function stagedDownload(options: DownloadOptions): Promise<DownloadResult> {
    // The sink of every remote name: checked here again whoever the caller, before anything is created.
    for (const item of options.items)
        localFileName(item.fileName, "the file");
    const staging = path.join(options.folder, ".partial");
    await fs.mkdir(staging, {recursive: true});
    const releaseLock = await lockStaging(staging, options.items[0]!.fileName);
    try {
        const downloaded = new Array<number>(options.items.length).fill(0);
        const downloaders = await Promise.all(options.items.map((item, index) => createModelDownloader({
            modelUri: item.url,
            dirPath: staging,
            fileName: item.fileName,
            skipExisting: true,
            deleteTempFileOnCancel: false,
            endpoints: {huggingFace: options.hubEndpoint},
            onProgress: ({downloadedSize}) => {
                downloaded[index] = downloadedSize;
                options.onProgress?.({totalBytes, downloadedBytes: downloaded.reduce((sum, bytes) => sum + bytes, 0)});
            }
        }).catch((error: unknown) => {
            throw refusal(error, item.fileName) ?? error;
        })));
        const files = downloaders.flatMap((downloader, index) => downloader.filesInfo.map((info) => ({...info, item: options.items[index]!})));
        // A split model's other parts are named by node-llama-cpp from part 1's: checked like it.
        for (const file of files)
            localFileName(file.fileName, "the file");
        const totalBytes = files.reduce((sum, file) => sum + file.totalSize, 0);
        if (await allInPlace(options.folder, files)) {
            await Promise.all(downloaders.map((downloader) => downloader.cancel({deleteTempFile: true})));
            return {files: files.map((file) => path.join(options.folder, file.fileName)), totalBytes, alreadyThere: true};
        }

        downloaders.forEach((downloader, index) => downloaded[index] = downloader.downloadedSize);
        options.onStart?.({totalBytes, downloadedBytes: downloaded.reduce((sum, bytes) => sum + bytes, 0)});
        // One after the other, not through combineModelDownloaders(): combining takes over the
        // finishing step of each file, which a split model's own downloader already took, so a
        // split model's parts were left as *.ipull files (node-llama-cpp 3.22.1, ipull 3.9.5).
        for (const downloader of downloaders)
            await downloader.download({signal: options.signal}).catch((error: unknown) => {
                throw refusal(error, downloader.entrypointFilename) ?? error;
            });

        options.onVerify?.();
        for (const file of files)
            await verify(file.filePath, file.totalSize, file.item.expected?.get(file.fileName));
        // A projector gets the checks a model gets (a malformed one wedged the server that loaded it):
        // nothing lands when either fails.
        for (const [index, downloader] of downloaders.entries()) {
            const model = options.items[index]!.model;
            await (model ? inspectGguf(downloader.entrypointFilePath) : inspectProjector(downloader.entrypointFilePath)).catch(async (error: Error) => {
                await fs.rm(downloader.entrypointFilePath, {force: true});
                throw new Error(`the downloaded ${downloader.entrypointFilename} is not a ${model ? "readable GGUF file" : "usable vision projector"} (${error.message}); it was deleted`);
            });
        }

        for (const name of landingOrder(downloaders))
            await fs.rename(path.join(staging, name), path.join(options.folder, name));
        return {files: files.map((file) => path.join(options.folder, file.fileName)), totalBytes, alreadyThere: false};
    } finally {
        await releaseLock();
        // Left when another pull still uses it, or when this one was interrupted (its progress is in there).
        await fs.rmdir(staging).catch(() => undefined);
    }
}

/** The downloader's "Url: …, Status code: 401, status text: …" as a sentence that says what to do. */
function refusal(error: unknown, fileName: string): Error | null {
    const {statusCode, statusText, url} = error as {statusCode?: unknown, statusText?: unknown, url?: unknown};
    if (typeof statusCode !== "number")
        return null;
    const host = typeof url === "string" ? new URL(url).host : "the server";
    const advice = statusCode === 401 || statusCode === 403
        ? "the repository is private or gated: accept its terms on its page and set HF_TOKEN to an access token of that account"
        : statusCode === 404 ? "the file is gone: check the name" : "try again later";
    return new Error(`${host} answered ${statusCode} ${typeof statusText === "string" ? statusText : ""} for ${fileName}: ${advice}`.replace("  ", " "));
}

/** Projector and later parts first, then the file the catalogue lists the model by. */
function landingOrder(downloaders: readonly ModelDownloader[]): string[] {
    const [model, ...companions] = downloaders;
    const [first, ...rest] = model!.filesInfo.map((info) => info.fileName);
    return [...companions.flatMap((downloader) => downloader.filesInfo.map((info) => info.fileName)), ...rest, first!];
}

async function allInPlace(folder: string, files: ReadonlyArray<{fileName: string, totalSize: number}>): Promise<boolean> {
    const sizes = await Promise.all(files.map((file) => fs.stat(path.join(folder, file.fileName)).then((stat) => stat.size, () => -1)));
    return files.every((file, index) => file.totalSize > 0 && sizes[index] === file.totalSize);
}

/** A file that is not what the source promised is deleted, so the next pull downloads it again. */
async function verify(file: string, totalSize: number, expected: {size?: number, sha256?: string} | undefined): Promise<void> {
    const size = (await fs.stat(file)).size;
    const wanted = expected?.size ?? totalSize;
    let problem: string | null = size !== wanted ? `${size} bytes instead of ${wanted}` : null;
    if (problem == null && expected?.sha256 != null) {
        const sha256 = await hashFile(file);
        if (sha256 !== expected.sha256.toLowerCase())
            problem = `its SHA-256 is ${sha256}, the source says ${expected.sha256}`;
    }
    if (problem != null) {
        await fs.rm(file, {force: true});
        throw new Error(`the download of ${path.basename(file)} is damaged (${problem}); it was deleted: pull again`);
    }
}

async function hashFile(file: string): Promise<string> {
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(file, {highWaterMark: 1 << 20}))
        hash.update(chunk as Buffer);
    return hash.digest("hex");
}

/**
 * One pull of a model at a time: two would write the same `.ipull` files. A lock left by a pull
 * that was killed (its process is gone) is taken over.
 */
async function lockStaging(staging: string, fileName: string): Promise<() => Promise<void>> {
    const lock = path.join(staging, `${fileName}.lock`);
    for (let attempt = 0; attempt < 2; attempt++) {
        try {
            await fs.writeFile(lock, String(process.pid), {flag: "wx"});
            return () => fs.rm(lock, {force: true});
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "EEXIST")
                throw error;
            const pid = Number(await fs.readFile(lock, "utf8").catch(() => ""));
            if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid))
                throw new Error(`another chatserve pull (process ${pid}) is downloading ${fileName}: wait for it, or stop it`);
            await fs.rm(lock, {force: true});
        }
    }
    throw new Error(`cannot lock ${lock}`);
}

function isRunning(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (error) {
        return (error as NodeJS.ErrnoException).code === "EPERM";
    }
}
