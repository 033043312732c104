import path from "node:path";
import {findModelFiles} from "../models/modelFiles.js";
import {hubFileUrl, hubToken, listHubFiles, type HubFile} from "./hubListing.js";
import {localFileName} from "./localFileName.js";
import {planHubPull, type HubPullPlan} from "./pullPlan.js";
import type {PullSource} from "./pullSource.js";
import {stagedDownload, type DownloadItem, type DownloadOptions} from "./stagedDownload.js";

export type PullRequest = {
    source: PullSource,
    modelsDir: string,
    hubEndpoint: string,
    /** A sentence for the person waiting ("pulling model-Q4_K_M.gguf (2 parts) from …"). */
    say(line: string): void
} & Pick<DownloadOptions, "signal" | "onStart" | "onProgress" | "onVerify">;

export type PullResult = {
    /** The model's id, as the catalogue names it (what a request's `model` says). */
    id: string | null,
    files: string[],
    totalBytes: number,
    alreadyThere: boolean
};

/**
 * `chatserve pull`: works out the files (a hub repository's listing decides which), downloads them
 * into the models folder, and says which model id they became. A hub pull lands in a subfolder named
 * after the repository, so that a vision model's projector sits beside it and no other; a URL's
 * file lands in the models folder itself.
 */
export async function pullModel(request: PullRequest): Promise<PullResult> {
    const {source, modelsDir, hubEndpoint} = request;
    let folder: string;
    let items: DownloadItem[];
    if (source.kind === "url") {
        await probeUrl(source.url);
        folder = modelsDir;
        items = [{url: source.url.href, fileName: source.fileName, model: true}];
        request.say(`pulling ${source.fileName} from ${source.url.host}`);
    } else {
        const label = `hf:${source.repo.user}/${source.repo.name}`;
        const files = await listHubFiles(hubEndpoint, source.repo, await hubToken());
        const plan = planHubPull(files, source.kind === "hub" ? {quant: source.quant} : {file: source.file}, label);
        folder = path.join(modelsDir, safeFolderName(source.repo.name));
        const fileName = (file: HubFile) => localFileName(path.posix.basename(file.path), `${label}'s file`);
        items = [
            {url: hubFileUrl(hubEndpoint, source.repo, plan.model[0]!.path), fileName: fileName(plan.model[0]!), expected: expectations(plan.model), model: true},
            ...(plan.projector != null ? [{url: hubFileUrl(hubEndpoint, source.repo, plan.projector.path), fileName: fileName(plan.projector), expected: expectations([plan.projector]), model: false}] : [])
        ];
        request.say(describePlan(plan, label, new URL(hubEndpoint).host));
    }

    const result = await stagedDownload({folder, items, hubEndpoint, signal: request.signal, onStart: request.onStart, onProgress: request.onProgress, onVerify: request.onVerify});
    const group = (await findModelFiles(modelsDir)).find((candidate) => candidate.path === path.resolve(result.files[0]!));
    return {id: group?.id ?? null, ...result};
}

/**
 * Asks for a URL's first byte before the downloader starts: the downloader retries a refused
 * connection or a server error for minutes, silently, where a mistyped URL deserves a sentence now.
 */
async function probeUrl(url: URL): Promise<void> {
    let response: Response;
    try {
        response = await fetch(url, {headers: {range: "bytes=0-0"}, signal: AbortSignal.timeout(30_000)});
    } catch (error) {
        const cause = (error as {cause?: {code?: string, message?: string}}).cause;
        throw new Error(`cannot reach ${url.host} (${cause?.code ?? cause?.message ?? (error as Error).message}): check the URL and the connection`);
    }
    await response.body?.cancel();
    if (!response.ok)
        throw new Error(`${url.host} answered ${response.status} ${response.statusText} for ${url.href}: check the URL`);
}

function describePlan(plan: HubPullPlan, label: string, host: string): string {
    const model = path.posix.basename(plan.model[0]!.path);
    const parts = plan.model.length > 1 ? ` (${plan.model.length} parts)` : "";
    const projector = plan.projector != null ? ` and its vision projector ${path.posix.basename(plan.projector.path)}` : "";
    return `pulling ${model}${parts}${projector} from ${label} on ${host}`;
}

function expectations(files: readonly HubFile[]): Map<string, {size?: number, sha256?: string}> {
    return new Map(files.map((file) => [path.posix.basename(file.path), {
        ...(file.size != null ? {size: file.size} : {}), ...(file.sha256 != null ? {sha256: file.sha256} : {})
    }]));
}

/** A repository's name as a folder of the models folder: never hidden, never outside it. */
function safeFolderName(name: string): string {
    return name.replace(/[\\/\0:*?"<>|]/g, "_").replace(/^\.+/, "_");
}
