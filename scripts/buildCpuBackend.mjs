// npm postinstall: compiles llama.cpp for this CPU with OpenMP, where that can be done.
//
// Why: node-llama-cpp's prebuilt CPU binaries are built without OpenMP, so ggml starts and joins a
// fresh set of compute threads for every token. Built from the llama.cpp source bundled with
// node-llama-cpp, with OpenMP (and one libuv worker thread, which bin/chatserve.cjs sets), the
// compute threads stay alive between tokens. With the defaults that go with it (README "CPU
// build"), on the 2-core bench machine single-stream decode went from 104.8 to 119.0 tok/s and
// 4 streams from 103.2 to 139.7 (npm run bench, medians).
//
// The addon is compiled with chatserve's own decode call added (native/decodeBatch.cpp, see
// scripts/addonSource.mjs), which chooses flash attention or plain attention batch by batch, and
// with llama.cpp's multimodal library for image input (native/vision.cpp, scripts/visionBuild.mjs;
// if the build fails with it, it is built again without; CHATSERVE_VISION=off leaves it out).
//
// It never fails the install and never leaves a build that does not work: without a compiler,
// cmake or git, on a machine that uses a GPU, or when the build fails, loads without OpenMP or
// does not run a tiny Q8_0 model through its matrix kernels (scripts/checkModel.mjs; a crash
// there only fails the check), the prebuilt binaries are used. A local build already installed
// is checked the same way, and compiled again if it fails. ggml's AMX kernels get a fix for GCC 12,
// and stay off unless their set-up runs here (scripts/amxBuild.mjs). CHATSERVE_CPU_BUILD=prebuilt
// skips it all.
//
// Each step runs in a child process (this file with --probe, --source, --build or --check): the
// prebuilt and local libraries share their names, so a process that loaded one cannot test the
// other.
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import {fileURLToPath} from "node:url";
import {addChatserveSource, chatserveSourceState} from "./addonSource.mjs";
import {amxBuildFlags, amxKernelsFile, compilerEnv, patchTileConfig} from "./amxBuild.mjs";
import {runCheckModel} from "./checkModel.mjs";
import {addVisionBuild, rememberVisionFailure, removeVisionBuild, visionFailedBefore} from "./visionBuild.mjs";

const log = (message) => console.log(`chatserve: ${message}`);

/** The steps that load node-llama-cpp; each prints one JSON line. */
const steps = {
    async probe({getLlama, LlamaLogLevel}) {
        const llama = await getLlama({gpu: "auto", build: "never", logLevel: LlamaLogLevel.error});
        return {gpu: llama.gpu, buildType: llama.buildType, chatserveDecode: hasChatserveDecode(llama), vision: hasVision(llama)};
    },
    async source() {
        // A fresh install has no llama.cpp source yet: node-llama-cpp clones its bundled release
        // (llama/gitRelease.bundle, no network) when it first builds. Cloned here first, so that
        // scripts/amxBuild.mjs can patch it; the build then uses it as it is.
        if (!fs.existsSync(amxKernelsFile())) {
            const {DownloadLlamaCppCommand} = await import("node-llama-cpp/commands");
            await DownloadLlamaCppCommand({skipBuild: true, noUsageExample: true});
        }
        return {cloned: fs.existsSync(amxKernelsFile())};
    },
    async build({getLlama, LlamaLogLevel}) {
        const llama = await getLlama({gpu: false, build: "forceRebuild", logLevel: LlamaLogLevel.error, progressLogs: false});
        return {buildType: llama.buildType};
    },
    async check({getLlama, LlamaLogLevel}) {
        const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
        // The same test as src/engine/openmp.ts, which is not built yet when npm runs postinstall.
        const openmp = /\/lib(?:gomp|omp|iomp5)\.so/.test(fs.readFileSync("/proc/self/maps", "utf8"));
        const generated = await runCheckModel(llama);
        return {buildType: llama.buildType, openmp, chatserveDecode: hasChatserveDecode(llama), vision: hasVision(llama), generated};
    }
};

/** The same test as src/engine/vision/nativeVision.ts: the addon was linked with libmtmd. */
function hasVision(llama) {
    return typeof llama._bindings?.ChatserveVision === "function";
}

/** Whether this install builds the addon with vision. */
const wantsVision = () => process.env.CHATSERVE_VISION !== "off";

/** The same test as src/engine/llamaInternals.ts: the addon has chatserve's decode call. */
function hasChatserveDecode(llama) {
    return typeof llama._bindings?.chatserveDecodeBatch === "function";
}

function runStep(name, {env = {}, quiet = false} = {}) {
    const stdio = ["ignore", "pipe", quiet ? "pipe" : "inherit"];
    const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), `--${name}`], {encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio, env: {...process.env, ...env}});
    return JSON.parse(output.trim().split("\n").at(-1));
}

/** The check step on the local build: `{built}` (what it found) if it is usable, else `{problem}`. */
function checkLocalBuild() {
    let built;
    try {
        built = runStep("check");
    } catch (error) {
        // A build that crashes on its first matrix product kills this child, not the install.
        return {problem: `the build crashed running a model (${error?.signal ?? error?.message?.split("\n")[0] ?? error})`};
    }
    if (built.buildType !== "localBuild")
        return {problem: "the build does not load"};
    if (!built.openmp)
        return {problem: "the build has no OpenMP"};
    return built.generated === 4 ? {built} : {problem: `the build generated ${built.generated} of 4 tokens`};
}

function onPath(command) {
    try {
        execFileSync(command, ["--version"], {stdio: "ignore"});
        return true;
    } catch {
        return false;
    }
}

/** Where node-llama-cpp keeps the builds it compiled. */
function localBuildsFolder() {
    const entry = fileURLToPath(import.meta.resolve("node-llama-cpp"));
    return path.join(entry, "..", "..", "llama", "localBuilds");
}

function install() {
    if (process.env.CHATSERVE_CPU_BUILD === "prebuilt")
        return log("CHATSERVE_CPU_BUILD=prebuilt: using node-llama-cpp's prebuilt binaries");
    if (process.platform !== "linux")
        return; // macOS uses Metal; other platforms keep the prebuilt binaries

    const missing = ["cmake", "git", "c++"].filter((tool) => !onPath(tool));
    if (missing.length > 0)
        return log(`no ${missing.join(", ")} on PATH: using the prebuilt CPU binaries (see README "CPU build")`);

    const current = runStep("probe");
    if (current.gpu !== false)
        return log(`${current.gpu} found: keeping its prebuilt binaries`);
    // A build made before chatserve's call changed (or before it existed) is made again.
    const source = chatserveSourceState();
    // A build without vision that could have it is made again (not where a vision build failed before:
    // buildWithOrWithoutVision remembers that), and one with vision that CHATSERVE_VISION=off turns down.
    const visionChanges = wantsVision() ? !current.vision && !visionFailedBefore() : current.vision;
    if (current.buildType === "localBuild" && !visionChanges && (source === "unsupported" || (source === "current" && current.chatserveDecode))) {
        const {problem} = checkLocalBuild();
        if (problem == null)
            return log("a local CPU build of llama.cpp is already installed");
        log(`${problem}: compiling it again`);
    }

    log("compiling llama.cpp for this CPU with OpenMP (a few minutes; CHATSERVE_CPU_BUILD=prebuilt skips this)");
    try {
        const added = addChatserveSource();
        if (added !== "added" && added !== "present")
            log(added);
        runStep("source", {quiet: true}); // its progress bars would fill the install log
        const tileConfig = patchTileConfig();
        const amx = amxBuildFlags(tileConfig !== "unsupported");
        if (amx.flags.length > 0)
            log(amx.reason);
        buildWithOrWithoutVision(compilerEnv(amx.flags));
        const {built, problem} = checkLocalBuild();
        if (problem == null)
            return log(`done: the server will use the OpenMP build${built.chatserveDecode ? "" : ", without chatserve's decode call"}` +
                `${built.vision ? ", with image input" : ", without image input"}`);
        log(problem);
    } catch (error) {
        log(`the build failed (${error?.message?.split("\n")[0] ?? error})`);
    }
    fs.rmSync(localBuildsFolder(), {recursive: true, force: true});
    log("using the prebuilt CPU binaries instead");
}

/** Builds with llama.cpp's multimodal library; if that fails, without it rather than lose the OpenMP build. */
function buildWithOrWithoutVision(env) {
    const vision = wantsVision() ? addVisionBuild() : (removeVisionBuild(), "off");
    if (vision === "unsupported")
        log("node-llama-cpp's CMakeLists.txt has changed: building without image input");
    try {
        runStep("build", {env});
    } catch (error) {
        if (vision !== "added" && vision !== "present")
            throw error;
        const reason = error?.message?.split("\n")[0] ?? String(error);
        log(`the build with image input failed (${reason}): building without it`);
        rememberVisionFailure(reason);
        removeVisionBuild();
        runStep("build", {env});
    }
}

const step = steps[process.argv[2]?.slice(2)];
if (step != null)
    console.log(JSON.stringify(await step(await import("node-llama-cpp"))));
else {
    try {
        install();
    } catch (error) {
        log(`skipped the CPU build: ${error?.message?.split("\n")[0] ?? error}`);
    }
}
