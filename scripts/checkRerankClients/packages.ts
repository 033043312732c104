import {execFile} from "node:child_process";
import {mkdir, readFile, writeFile} from "node:fs/promises";
import {createRequire} from "node:module";
import path from "node:path";
import {pathToFileURL} from "node:url";
import {promisify} from "node:util";

const run = promisify(execFile);

/**
 * The clients' packages, pinned: LangChain JS's Cohere reranker (it takes a CohereClient, which
 * takes a base URL), LlamaIndex TS's Cohere reranker (a `baseUrl` option) and LlamaIndex's own
 * JinaAIReranker (no such option: its URL is written into its code). The peers are pinned too, so a
 * run next month installs what this one did.
 */
export const pinnedPackages = {
    "@langchain/cohere": "1.0.5",
    "@langchain/core": "1.4.0",
    "@llamaindex/cohere": "0.0.37",
    "@llamaindex/core": "0.6.23",
    "@llamaindex/env": "0.1.31",
    "llamaindex": "0.12.1"
} as const;

/** Imports a module as the installed clients see it (their own copies of cohere-ai and the rest). */
export type ModuleLoader = (specifier: string, from?: string) => Promise<any>;

/**
 * Installs the pinned packages into `dir`, outside chatserve's dependencies (they would pull two
 * more copies of cohere-ai into everyone's install for a check run by hand), unless it already
 * holds them; returns a loader that imports from there.
 */
export async function installClients(dir: string, log: (line: string) => void): Promise<ModuleLoader> {
    if (!await holdsPinned(dir)) {
        log(`installing ${Object.entries(pinnedPackages).map(([name, version]) => `${name}@${version}`).join(" ")} into ${dir}`);
        await mkdir(dir, {recursive: true});
        await writeFile(path.join(dir, "package.json"), JSON.stringify({private: true, description: "chatserve check:rerank-clients"}, null, 2));
        // No install scripts: these are plain JavaScript libraries.
        await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", "--save-exact",
            ...Object.entries(pinnedPackages).map(([name, version]) => `${name}@${version}`)], {cwd: dir, maxBuffer: 16 * 1024 * 1024});
        if (!await holdsPinned(dir))
            throw new Error(`npm install in ${dir} did not leave the pinned versions`);
    }
    const root = createRequire(path.join(dir, "package.json"));
    // `from`: resolve as that package does (LlamaIndex's Cohere reranker has its own, older cohere-ai).
    return async (specifier, from) => {
        const resolver = from == null ? root : createRequire(root.resolve(from));
        return await import(pathToFileURL(resolver.resolve(specifier)).href);
    };
}

async function holdsPinned(dir: string): Promise<boolean> {
    for (const [name, version] of Object.entries(pinnedPackages)) {
        try {
            const manifest = JSON.parse(await readFile(path.join(dir, "node_modules", name, "package.json"), "utf8")) as {version?: string};
            if (manifest.version !== version)
                return false;
        } catch {
            return false;
        }
    }
    return true;
}
