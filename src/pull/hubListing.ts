import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {unsafeFileNameReason} from "./localFileName.js";
import type {HubRepo} from "./pullSource.js";

/** One file of a hub repository, with what the hub says of it (size and, for LFS files, SHA-256). */
export type HubFile = {path: string, size?: number, sha256?: string};

/** The hub chatserve pulls from: `--hf-endpoint`, else `MODEL_ENDPOINT` or `HF_ENDPOINT` (as llama.cpp and node-llama-cpp read them). */
export function resolveHubEndpoint(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
    const endpoint = [flag, env.MODEL_ENDPOINT, env.HF_ENDPOINT].find((value) => value != null && value.trim() !== "")?.trim() ?? "https://huggingface.co/";
    let url: URL;
    try {
        url = new URL(endpoint);
    } catch {
        throw new Error(`the hub endpoint '${endpoint}' is not a URL (--hf-endpoint, MODEL_ENDPOINT, HF_ENDPOINT)`);
    }
    return url.href.endsWith("/") ? url.href : `${url.href}/`;
}

/**
 * The access token for private and gated repositories, where the Hugging Face tools keep it:
 * `HF_TOKEN`, else the file `huggingface-cli login` writes. node-llama-cpp's downloader finds it the same way.
 */
export async function hubToken(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
    if (env.HF_TOKEN != null && env.HF_TOKEN.trim() !== "")
        return env.HF_TOKEN.trim();
    const home = env.HF_HOME || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "huggingface");
    const token = await fs.readFile(env.HF_TOKEN_PATH || path.join(home, "token"), "utf8").catch(() => "");
    return token.trim() === "" ? undefined : token.trim();
}

/** The URL a repository's file downloads from (what the hub's own "download" links point at). */
export function hubFileUrl(endpoint: string, repo: HubRepo, file: string): string {
    const encodedPath = file.split("/").map((part) => encodeURIComponent(part)).join("/");
    return `${endpoint}${encodeURIComponent(repo.user)}/${encodeURIComponent(repo.name)}/resolve/${encodeURIComponent(repo.revision)}/${encodedPath}`;
}

/**
 * Every file of a repository at a revision, from the hub's model API (`api/models/{repo}`, with
 * `blobs=true` for sizes and hashes). Throws a sentence that says what went wrong and what to do.
 */
export async function listHubFiles(endpoint: string, repo: HubRepo, token?: string): Promise<HubFile[]> {
    const name = `${repo.user}/${repo.name}`;
    const revisionPath = repo.revision === "main" ? "" : `/revision/${encodeURIComponent(repo.revision)}`;
    const url = `${endpoint}api/models/${encodeURIComponent(repo.user)}/${encodeURIComponent(repo.name)}${revisionPath}?blobs=true`;
    const host = new URL(endpoint).host;

    let response: Response;
    try {
        response = await fetch(url, {
            headers: {accept: "application/json", ...(token != null ? {authorization: `Bearer ${token}`} : {})},
            signal: AbortSignal.timeout(30_000)
        });
    } catch (error) {
        const cause = (error as {cause?: {code?: string, message?: string}}).cause;
        throw new Error(`cannot reach ${host} (${cause?.code ?? cause?.message ?? (error as Error).message}): check the connection, ` +
            `or point --hf-endpoint (HF_ENDPOINT) at a mirror`);
    }
    // The hub answers 401 for a repository that does not exist as for a private one, unless signed in.
    if (response.status === 401)
        throw new Error(`${host} has no repository ${name} that it shows without signing in: check the name, ` +
            `or, for a private or gated one, set HF_TOKEN to an access token`);
    if (response.status === 403)
        throw new Error(`${name} is gated: accept its terms on its page at ${host}, and set HF_TOKEN to an access token of that account`);
    if (response.status === 404)
        throw new Error(repo.revision === "main"
            ? `${host} has no repository ${name}: check the name (user/repository, as in its URL)`
            : `${host} has no repository ${name} with a revision '${repo.revision}'`);
    if (!response.ok)
        throw new Error(`${host} answered ${response.status} ${response.statusText} for the file list of ${name}: try again later`);

    const body = await response.json().catch(() => null) as {siblings?: unknown} | null;
    if (body == null || !Array.isArray(body.siblings))
        throw new Error(`${host} did not answer with a file list for ${name} (is --hf-endpoint a Hugging Face hub or mirror?)`);
    return body.siblings.flatMap((sibling: {rfilename?: unknown, size?: unknown, lfs?: {sha256?: unknown, size?: unknown}}) => {
        // A .gguf whose name could not be a file here (`..\..\x.gguf`) is no candidate to pull.
        if (typeof sibling?.rfilename !== "string" || (/\.gguf$/i.test(sibling.rfilename) && unsafeFileNameReason(path.posix.basename(sibling.rfilename)) != null))
            return [];
        const size = typeof sibling.lfs?.size === "number" ? sibling.lfs.size : typeof sibling.size === "number" ? sibling.size : undefined;
        const sha256 = typeof sibling.lfs?.sha256 === "string" ? sibling.lfs.sha256 : undefined;
        return [{path: sibling.rfilename, ...(size != null ? {size} : {}), ...(sha256 != null ? {sha256} : {})}];
    });
}
