import path from "node:path";
import {localFileName} from "./localFileName.js";

/**
 * What `chatserve pull` was asked for:
 * - `hf:user/repo:Q4_K_M` (or no `:quant`): a model of a Hugging Face repository, by quantization;
 * - `hf:user/repo/path/file.gguf`: one file of it (all parts of a split model);
 * - `https://…/file.gguf`: any URL (a hub's own file and repository URLs read as the forms above).
 * A hub pull may end in `#revision` (a branch, tag or commit; default `main`).
 */
export type PullSource =
    | {kind: "hub", repo: HubRepo, quant?: string}
    | {kind: "hubFile", repo: HubRepo, file: string}
    | {kind: "url", url: URL, fileName: string};

export type HubRepo = {user: string, name: string, revision: string};

const hubPrefixes = ["hf://", "huggingface://", "hf:", "huggingface:"];
/** Hosts that mean "the hub" besides the configured endpoint's. */
const hubHosts = new Set(["huggingface.co", "hf.co"]);

/** Parses the argument of `chatserve pull`; throws with what to write instead. */
export function parsePullSource(text: string, hubEndpoint: string): PullSource {
    const source = text.trim();
    const prefix = hubPrefixes.find((candidate) => source.toLowerCase().startsWith(candidate));
    if (prefix != null)
        return parseHubPath(source.slice(prefix.length), source);

    let url: URL;
    try {
        url = new URL(source);
    } catch {
        throw new Error(`'${text}' is neither hf:user/repo[:quant], hf:user/repo/file.gguf nor an http(s) URL of a .gguf file`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
        throw new Error(`'${text}' is not an http(s) URL`);

    if (hubHosts.has(url.hostname) || url.host === new URL(hubEndpoint).host) {
        const hub = hubUrlPath(url, hubEndpoint);
        if (hub != null)
            return parseHubPath(hub, source);
    }

    const fileName = path.posix.basename(decoded(url.pathname));
    if (!/\.gguf$/i.test(fileName))
        throw new Error(`the URL must name a .gguf file (its path ends in '${fileName}')`);
    return {kind: "url", url, fileName: localFileName(fileName, "the URL's file")};
}

/** `user/repo[:quant][#revision]` or `user/repo/path/file.gguf[#revision]`. */
function parseHubPath(rest: string, original: string): PullSource {
    const [location = "", revision = "main", ...extra] = rest.split("#");
    const [user = "", repoAndTag = "", ...filePath] = location.split("/");
    const invalid = () => new Error(`'${original}' is not hf:user/repo[:quant] or hf:user/repo/file.gguf`);
    if (extra.length > 0 || revision === "" || user === "" || repoAndTag === "")
        throw invalid();

    if (filePath.length === 0 || (filePath.length === 1 && filePath[0] === "")) {
        const [name = "", quant, ...more] = repoAndTag.split(":");
        if (name === "" || more.length > 0 || quant === "")
            throw invalid();
        return {kind: "hub", repo: {user, name, revision}, ...(quant != null ? {quant} : {})};
    }
    const file = filePath.join("/");
    if (repoAndTag.includes(":") || filePath.some((part) => part === "" || part === "." || part === ".."))
        throw invalid();
    if (!/\.gguf$/i.test(file))
        throw new Error(`'${file}' is not a .gguf file: chatserve serves GGUF models`);
    return {kind: "hubFile", repo: {user, name: repoAndTag, revision}, file};
}

/**
 * A hub URL as a hub path: a repository page (`/user/repo`) or a file's `/resolve/` or `/blob/`
 * URL (`/user/repo/resolve/main/file.gguf`). Null for any other URL on that host.
 */
function hubUrlPath(url: URL, hubEndpoint: string): string | null {
    // A mirror may live under a path (https://mirror.example/hf/): the repository comes after it.
    const base = new URL(hubEndpoint).pathname.replace(/\/?$/, "/");
    const pathname = url.host === new URL(hubEndpoint).host && url.pathname.startsWith(base) ? url.pathname.slice(base.length) : url.pathname.slice(1);
    const parts = pathname.split("/").filter((part) => part !== "").map(decoded);
    if (parts.length === 2)
        return parts.join("/");
    const [user, repo, action, revision, ...file] = parts;
    if ((action === "resolve" || action === "blob") && revision != null && file.length > 0)
        return `${user}/${repo}/${file.join("/")}${revision === "main" ? "" : `#${revision}`}`;
    return null;
}

/** A URL's path segment as a name ("My%20Model" → "My Model"); a malformed escape stays as written. */
function decoded(segment: string): string {
    try {
        return decodeURIComponent(segment);
    } catch {
        return segment;
    }
}

/** A name that can only land in the models folder itself. */
/** How a pull is written back for messages: `hf:user/repo:Q4_K_M`. */
export function describePullSource(source: PullSource): string {
    const revision = source.kind !== "url" && source.repo.revision !== "main" ? `#${source.repo.revision}` : "";
    switch (source.kind) {
        case "hub":
            return `hf:${source.repo.user}/${source.repo.name}${source.quant != null ? `:${source.quant}` : ""}${revision}`;
        case "hubFile":
            return `hf:${source.repo.user}/${source.repo.name}/${source.file}${revision}`;
        case "url":
            return source.url.href;
        default:
            return source satisfies never;
    }
}
