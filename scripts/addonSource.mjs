// Adds chatserve's native calls (native/decodeBatch.cpp, native/vision.cpp) to node-llama-cpp's addon
// source before buildCpuBackend.mjs compiles it: the files go next to the addon's own (its CMakeLists
// globs addon/*.cpp), and addon.cpp's module init gets one line that registers them
// (decodeBatch.cpp's chatserveRegister, which registers vision.cpp's calls too).
//
// Idempotent, and all or nothing: if addon.cpp no longer has the lines it hooks onto (a
// node-llama-cpp upgrade), nothing is changed and the build goes on without it; chatserve then
// uses node-llama-cpp's two calls (src/engine/llamaInternals.ts).
import fs from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";

/** Each native file, and its name in the addon's folder. */
const sources = [["decodeBatch.cpp", "chatserveDecodeBatch.cpp"], ["vision.cpp", "chatserveVision.cpp"]]
    .map(([name, target]) => ({source: fileURLToPath(new URL(`../native/${name}`, import.meta.url)), target}));
const declaration = "void chatserveRegister(Napi::Object exports);\n";
const call = "    chatserveRegister(exports);\n";
const initAnchor = "Napi::Object registerCallback(Napi::Env env, Napi::Object exports) {\n";
const callAnchor = "    llama_log_set(addonLlamaCppLogCallback, nullptr);\n";

/** node-llama-cpp's addon source folder, from its package entry. */
export function addonFolder() {
    const entry = fileURLToPath(import.meta.resolve("node-llama-cpp"));
    return path.join(entry, "..", "..", "llama", "addon");
}

/**
 * What node-llama-cpp's addon source holds of chatserve's calls: "current" (this checkout's
 * native files, registered), "stale" (absent, or an older copy: a build is needed) or
 * "unsupported" (addon.cpp lacks the lines it hooks onto: a build would not add it).
 */
export function chatserveSourceState(folder = addonFolder()) {
    const addon = fs.readFileSync(path.join(folder, "addon.cpp"), "utf8");
    if (!addon.includes(call) && !(addon.includes(initAnchor) && addon.includes(callAnchor)))
        return "unsupported";
    const copied = ({source, target}) => fs.existsSync(path.join(folder, target)) &&
        fs.readFileSync(path.join(folder, target), "utf8") === fs.readFileSync(source, "utf8");
    return addon.includes(call) && sources.every(copied) ? "current" : "stale";
}

/** @returns {"added" | "present" | string} what happened, or why nothing was. */
export function addChatserveSource(folder = addonFolder()) {
    if (chatserveSourceState(folder) === "unsupported")
        return "node-llama-cpp's addon.cpp has changed: building it without chatserve's decode call";
    const addonFile = path.join(folder, "addon.cpp");
    const addon = fs.readFileSync(addonFile, "utf8");
    for (const {source, target} of sources)
        fs.copyFileSync(source, path.join(folder, target));
    if (addon.includes(call))
        return "present";
    const patched = addon.replace(initAnchor, declaration + "\n" + initAnchor).replace(callAnchor, call + callAnchor);
    fs.writeFileSync(addonFile, patched);
    return "added";
}
