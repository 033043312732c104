// node --import tsx scripts/checkAborts/run.ts [name filter]: confirms, against the llama.cpp
// node-llama-cpp bundles now, that every file chatserve refuses as one llama.cpp would abort on
// (test/fixtures/gguf/abortCases.ts) still aborts it, and that the files alike that chatserve passes
// still load and run. Each file is loaded in a child process (child.ts), never in this one. Run it
// after moving node-llama-cpp: a refused file that no longer aborts is a check to drop or loosen.
import {spawn} from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {inspectGguf, inspectProjector} from "../../src/models/ggufInspection.js";
import {loadableModelCases, loadableProjectorCases, modelAbortCases, projectorAbortCases, type FileCase, type ProjectorPair} from "../../test/fixtures/gguf/abortCases.js";
import {encodeGguf} from "../../test/fixtures/gguf/ggufWriter.js";
import {buildTinyGemma3VisionModel, buildTinyLlavaModel, buildTinyQwen2VlModel} from "../../test/fixtures/gguf/visionModels.js";

const child = fileURLToPath(new URL("child.ts", import.meta.url));
const filter = process.argv[2] ?? "";
const dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-aborts-"));
const pairs: Record<ProjectorPair, (folder: string) => Promise<{model: string}>> = {
    llava: buildTinyLlavaModel, gemma3: buildTinyGemma3VisionModel, qwen2vl: buildTinyQwen2VlModel
};

/** How a child process that loaded the file ended: "aborted (SIGABRT)", "ran", or "refused: <why>". */
function loadInChild(files: string[]): Promise<string> {
    return new Promise((resolve) => {
        const process_ = spawn(process.execPath, ["--import", "tsx", child, ...files], {stdio: ["ignore", "pipe", "pipe"]});
        let output = "";
        process_.stdout.on("data", (data: Buffer) => output += data.toString());
        const timer = setTimeout(() => process_.kill("SIGKILL"), 180_000);
        process_.once("exit", (code, signal) => {
            clearTimeout(timer);
            const last = output.trim().split("\n").at(-1) ?? "";
            resolve(signal != null || code === 134 ? `aborted (${signal ?? code})` : code === 0 && /^(ran|refused: )/.test(last) ? last : `exited ${code}`);
        });
    });
}

async function check(kind: "model" | "projector", fileCase: FileCase, shouldAbort: boolean): Promise<boolean> {
    const folder = await fs.mkdtemp(path.join(dir, "case-"));
    let files: string[];
    if (kind === "model")
        files = [path.join(folder, "model.gguf")];
    else
        files = [(await pairs[fileCase.pairsWith!](folder)).model, path.join(folder, "mmproj-case.gguf")];
    await fs.writeFile(files.at(-1)!, encodeGguf(fileCase.file()));
    const refusal = await (kind === "model" ? inspectGguf(files[0]!) : inspectProjector(files[1]!)).then(() => null, (error: Error) => error.message);
    const outcome = await loadInChild(files);
    const ok = shouldAbort ? refusal != null && outcome.startsWith("aborted") : refusal == null && !outcome.startsWith("aborted");
    console.log(`${ok ? "ok  " : "FAIL"}  ${kind} ${shouldAbort ? "refused" : "passed "}  ${fileCase.name}: llama.cpp ${outcome}${refusal == null ? "" : `; chatserve: ${refusal}`}`);
    return ok;
}

const runs: Array<["model" | "projector", FileCase, boolean]> = [
    ...modelAbortCases.map((c) => ["model", c, true] as ["model", FileCase, boolean]),
    ...loadableModelCases.map((c) => ["model", c, false] as ["model", FileCase, boolean]),
    ...projectorAbortCases.map((c) => ["projector", c, true] as ["projector", FileCase, boolean]),
    ...loadableProjectorCases.map((c) => ["projector", c, false] as ["projector", FileCase, boolean])
];
let failed = 0;
for (const [kind, fileCase, shouldAbort] of runs.filter(([, c]) => c.name.includes(filter)))
    if (!await check(kind, fileCase, shouldAbort))
        failed++;
await fs.rm(dir, {recursive: true, force: true});
console.log(failed === 0 ? "every refused file aborts llama.cpp, every passed one runs" : `${failed} case(s) disagree with llama.cpp`);
process.exitCode = failed === 0 ? 0 : 1;
