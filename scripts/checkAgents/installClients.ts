import {execFile} from "node:child_process";
import {access, mkdir, readFile, writeFile} from "node:fs/promises";
import path from "node:path";
import {promisify} from "node:util";
import type {AgentClient} from "./agentClient.js";

const run = promisify(execFile);

/**
 * Installs a client's pinned version with npm into a folder of its own under `cacheDir`
 * (`<package>@<version>/`), outside chatserve's dependencies, and returns its executable. A
 * folder that already holds that version is reused, so only the first run downloads (the four
 * CLIs are ~1 GB together, most of it Codex's and opencode's native binaries).
 */
export async function installClient(cacheDir: string, client: AgentClient, log: (line: string) => void): Promise<string> {
    const dir = path.join(cacheDir, `${client.packageName.replace("/", "+")}@${client.version}`);
    const bin = path.join(dir, "node_modules", ".bin", client.binName);
    if (await installedVersion(dir, client.packageName) === client.version && await exists(bin))
        return bin;
    log(`installing ${client.packageName}@${client.version} into ${dir}`);
    await mkdir(dir, {recursive: true});
    await writeFile(path.join(dir, "package.json"), JSON.stringify({private: true, description: "chatserve check:agents client"}, null, 2));
    // Install scripts stay on: opencode's postinstall puts the binary for this platform in place.
    await run("npm", ["install", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error", "--save-exact", `${client.packageName}@${client.version}`], {
        cwd: dir, maxBuffer: 16 * 1024 * 1024
    });
    if (await installedVersion(dir, client.packageName) !== client.version || !await exists(bin))
        throw new Error(`npm install of ${client.packageName}@${client.version} in ${dir} did not leave ${bin}`);
    return bin;
}

async function installedVersion(dir: string, packageName: string): Promise<string | null> {
    try {
        const manifest = JSON.parse(await readFile(path.join(dir, "node_modules", packageName, "package.json"), "utf8")) as {version?: string};
        return manifest.version ?? null;
    } catch {
        return null;
    }
}

async function exists(file: string): Promise<boolean> {
    try {
        await access(file);
        return true;
    } catch {
        return false;
    }
}
