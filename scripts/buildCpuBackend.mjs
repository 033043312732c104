// npm postinstall: compiles llama.cpp for this CPU with OpenMP, where that can be done.
//
// Why: node-llama-cpp's prebuilt CPU binaries are built without OpenMP, so ggml starts and joins a
// fresh set of compute threads for every token. Built from the same bundled source with OpenMP (and
// one libuv worker thread, which bin/chatserve.cjs sets), the compute threads stay alive between
// tokens. With the defaults that go with it (see README "CPU build"), on the 2-core bench machine
// single-stream decode went from 104.8 to 125.1 tok/s and 4 streams from 103.2 to 146.3 (npm run bench).
//
// It never fails the install: without a compiler, cmake or git, on a machine that uses a GPU, or
// when the build fails, the prebuilt binaries are used as before. CHATSERVE_CPU_BUILD=prebuilt
// skips it.
import {execFileSync} from "node:child_process";
import process from "node:process";

const log = (message) => console.log(`chatserve: ${message}`);

function onPath(command) {
    try {
        execFileSync(command, ["--version"], {stdio: "ignore"});
        return true;
    } catch {
        return false;
    }
}

async function main() {
    if (process.env.CHATSERVE_CPU_BUILD === "prebuilt")
        return log("CHATSERVE_CPU_BUILD=prebuilt: using node-llama-cpp's prebuilt binaries");
    if (process.platform !== "linux")
        return; // macOS uses Metal; other platforms keep the prebuilt binaries

    const missing = ["cmake", "git", "c++"].filter((tool) => !onPath(tool));
    if (missing.length > 0)
        return log(`no ${missing.join(", ")} on PATH: using the prebuilt CPU binaries (see README "CPU build")`);

    const {getLlama, LlamaLogLevel} = await import("node-llama-cpp");
    const current = await getLlama({gpu: "auto", build: "never", logLevel: LlamaLogLevel.error});
    const {gpu, buildType} = current;
    await current.dispose();
    if (gpu !== false)
        return log(`${gpu} found: keeping its prebuilt binaries`);
    if (buildType === "localBuild")
        return log("a local CPU build of llama.cpp is already installed");

    log("compiling llama.cpp for this CPU with OpenMP (a few minutes; CHATSERVE_CPU_BUILD=prebuilt skips this)");
    const built = await getLlama({gpu: false, build: "forceRebuild", logLevel: LlamaLogLevel.error, progressLogs: false});
    log(`done: ${built.buildType}`);
    await built.dispose();
}

main().catch((error) => {
    log(`could not build llama.cpp from source, using the prebuilt binaries (${error?.message ?? error})`);
});
