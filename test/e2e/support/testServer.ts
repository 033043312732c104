import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import {resolveConfig, type ConfigInput} from "../../../src/config.js";
import {createLogger} from "../../../src/logger.js";
import {startServer, type RunningServer} from "../../../src/server.js";

export type TestServer = RunningServer & {
    modelsDir: string,
    /** The official client, pointed at this server. */
    client(apiKey?: string): OpenAI,
    stop(): Promise<void>
};

/**
 * For a server whose test asserts that drafts are made: a drafted token's cost fixed at the bench
 * model's, as on every machine alike. Measured (the default), it depends on the machine's speed and
 * load, and on a tiny model it can rise so high that even a right prediction is not worth drafting.
 */
export const fixedDraftCost = {draftTokenCost: 0.15} as const;

/**
 * A real chatserve listening on a free port, serving the given files (linked into a temporary
 * models folder under the given ids). Two inference threads: the CI machine has two cores and
 * test files run one at a time.
 */
export async function startTestServer(models: Record<string, string>, config: ConfigInput = {}, files: Record<string, string> = {}): Promise<TestServer> {
    const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-test-"));
    for (const [id, file] of Object.entries(models))
        await fs.symlink(file, path.join(modelsDir, `${id}.gguf`));
    // Other files in the folder from the start: a chatserve.json, or a copy of a .gguf (given by its absolute path) that
    // chatserve.json names, which must lie in the folder itself, links resolved.
    for (const [name, content] of Object.entries(files))
        await (path.isAbsolute(content) && content.endsWith(".gguf") ? fs.copyFile(content, path.join(modelsDir, name)) : fs.writeFile(path.join(modelsDir, name), content));

    // The prompt cache's disk tier in a folder of the test's own: never the user's, never another test's.
    const promptCacheDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-test-cache-"));
    const server = await startServer(resolveConfig({
        modelsDir, port: 0, threads: 2, parallel: 2, ctxSize: 1024, logLevel: "silent", promptCacheDir, ...config
    }), createLogger("silent"));

    return {
        ...server,
        modelsDir,
        client: (apiKey = "no-key") => new OpenAI({baseURL: server.url, apiKey, maxRetries: 0, timeout: 60_000}),
        stop: async () => {
            await server.close(1000);
            await fs.rm(modelsDir, {recursive: true, force: true});
            await fs.rm(promptCacheDir, {recursive: true, force: true});
        }
    };
}
