import {spawnSync} from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {projectRoot} from "./args.js";

export type BuildStatus = "up to date" | "built" | "build failed, used the existing dist/" | "skipped (--no-build)";

/** Newest modification time of any file under a folder (0 when it does not exist). */
function newestMtime(folder: string): number {
    if (!fs.existsSync(folder))
        return 0;
    let newest = 0;
    for (const entry of fs.readdirSync(folder, {withFileTypes: true, recursive: true}))
        if (entry.isFile())
            newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    return newest;
}

/**
 * The server child runs dist/ (bin/chatserve.cjs imports dist/cli/main.js): rebuild it with
 * `npm run build` when it is missing or older than src/. A failed build with an existing dist/
 * only warns (type errors still emit JavaScript), and the results record it.
 */
export function ensureBuilt(enabled: boolean): BuildStatus {
    const entry = path.join(projectRoot, "dist", "cli", "main.js");
    if (!enabled)
        return "skipped (--no-build)";
    if (fs.existsSync(entry) && newestMtime(path.join(projectRoot, "dist")) >= newestMtime(path.join(projectRoot, "src")))
        return "up to date";

    console.error("bench: building chatserve (npm run build) …");
    const build = spawnSync("npm", ["run", "build"], {cwd: projectRoot, encoding: "utf8"});
    if (build.status === 0)
        return "built";
    const output = `${build.stdout ?? ""}${build.stderr ?? ""}`.trim();
    if (!fs.existsSync(entry))
        throw new Error(`npm run build failed and there is no dist/ to run:\n${output}`);
    console.error(`bench: WARNING: npm run build failed; measuring the existing dist/:\n${output}\n`);
    return "build failed, used the existing dist/";
}
