// `npm run build:native -- --gpu cuda|vulkan|metal`: compiles node-llama-cpp's addon from the
// llama.cpp source it bundles for a GPU backend, with chatserve's native calls (native/*.cpp) and
// llama.cpp's multimodal library: image input on a GPU, whose prebuilt binaries have neither.
// Needs that backend's toolchain (CUDA toolkit with nvcc, the Vulkan SDK, Xcode's command-line
// tools) besides cmake, git and a C++ compiler. chatserve then loads this build before the
// prebuilt one (node-llama-cpp looks for local builds first). `npm install` on a Linux CPU machine
// does the same for the CPU by itself (scripts/buildCpuBackend.mjs).
import fs from "node:fs";
import process from "node:process";
import {addChatserveSource} from "./addonSource.mjs";
import {amxKernelsFile} from "./amxBuild.mjs";
import {addVisionBuild} from "./visionBuild.mjs";

const gpus = ["cuda", "vulkan", "metal"];
const gpu = process.argv[process.argv.indexOf("--gpu") + 1];
if (!process.argv.includes("--gpu") || !gpus.includes(gpu)) {
    console.error(`usage: npm run build:native -- --gpu ${gpus.join("|")}`);
    process.exit(2);
}

const {getLlama, LlamaLogLevel} = await import("node-llama-cpp");
if (!fs.existsSync(amxKernelsFile())) {
    // The bundled llama.cpp release (no network): a GPU install never cloned it.
    const {DownloadLlamaCppCommand} = await import("node-llama-cpp/commands");
    await DownloadLlamaCppCommand({skipBuild: true, noUsageExample: true});
}
console.log(`chatserve: ${addChatserveSource()}; vision: ${addVisionBuild()}`);
const llama = await getLlama({gpu, build: "forceRebuild", logLevel: LlamaLogLevel.warn});
const vision = typeof llama._bindings?.ChatserveVision === "function";
console.log(`chatserve: built llama.cpp for ${llama.gpu} (${llama.buildType}), ${vision ? "with" : "WITHOUT"} image input`);
process.exit(vision ? 0 : 1);
