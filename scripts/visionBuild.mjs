// Builds llama.cpp's multimodal library (tools/mtmd) with node-llama-cpp's addon and links it in,
// so that native/vision.cpp gets its calls (image input, src/engine/vision/ and src/images/). node-llama-cpp's own
// llama/CMakeLists.txt adds llama.cpp as a subproject, where tools/ is off; llama.cpp's
// LLAMA_BUILD_MTMD switch builds the library alone. Done as a patch of that CMakeLists rather than
// through node-llama-cpp's cmake options, which would rename the build folder that chatserve's
// `getLlama({build: "never"})` looks for.
//
// MTMD_VIDEO stays off: with it, mtmd decodes WebP and video by running ffmpeg on the bytes, and a
// server must not run a program on what a client sends.
//
// Idempotent, and reversible: buildCpuBackend.mjs removes the patch to retry a build that failed
// with it, or when CHATSERVE_VISION=off. A failure is remembered beside the CMakeLists (until
// node-llama-cpp is installed again), so that later installs do not try it again every time.
import fs from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";

const marker = "# chatserve: vision (scripts/visionBuild.mjs)";
const buildSwitches = `${marker}\nset(LLAMA_BUILD_MTMD ON)\nset(MTMD_VIDEO OFF CACHE BOOL "" FORCE)\n`;
const link = `${marker}\nif (TARGET mtmd)\n    target_link_libraries(\${PROJECT_NAME} mtmd)\nendif()\n`;
const subprojectAnchor = `add_subdirectory("llama.cpp")\n`;
const linkAnchor = `target_link_libraries(\${PROJECT_NAME} "llama-common")\n`;

/** node-llama-cpp's llama/CMakeLists.txt. */
export function llamaCmakeFile() {
    const entry = fileURLToPath(import.meta.resolve("node-llama-cpp"));
    return path.join(entry, "..", "..", "llama", "CMakeLists.txt");
}

/** "present", "absent", or "unsupported" (the lines it hooks onto are gone: a node-llama-cpp upgrade). */
export function visionBuildState(file = llamaCmakeFile()) {
    const cmake = fs.readFileSync(file, "utf8");
    if (cmake.includes(marker))
        return "present";
    return cmake.includes(subprojectAnchor) && cmake.includes(linkAnchor) ? "absent" : "unsupported";
}

/** @returns {"added" | "present" | "unsupported"} */
export function addVisionBuild(file = llamaCmakeFile()) {
    const state = visionBuildState(file);
    if (state !== "absent")
        return state;
    const cmake = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, cmake.replace(subprojectAnchor, buildSwitches + subprojectAnchor).replace(linkAnchor, linkAnchor + link));
    return "added";
}

/** Restores the CMakeLists as node-llama-cpp ships it. */
export function removeVisionBuild(file = llamaCmakeFile()) {
    if (visionBuildState(file) !== "present")
        return;
    const cmake = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, cmake.replace(buildSwitches, "").replace(link, ""));
}

/** Where a failed vision build is remembered: in node-llama-cpp's llama/ folder, which a reinstall replaces. */
function failureFile(file) {
    return path.join(path.dirname(file), ".chatserve-vision-failed");
}

/** Notes that the build with vision failed here, and why. */
export function rememberVisionFailure(reason, file = llamaCmakeFile()) {
    fs.writeFileSync(failureFile(file), `${reason}\n`);
}

/** Whether a build with vision failed here before (this node-llama-cpp install). */
export function visionFailedBefore(file = llamaCmakeFile()) {
    return fs.existsSync(failureFile(file));
}
