// How buildCpuBackend.mjs builds llama.cpp's AMX kernels. llama.cpp is compiled with GGML_NATIVE,
// and where the CPU has AMX (Intel's matrix instructions), -march=native turns them on whatever
// GGML_AMX_* say. They matter: on the 2-core Xeon this project builds and tests on, single-thread
// decode of the bench model took 24.2–24.4 ms of CPU time per token without them and 14.5–14.9
// with them (node-llama-cpp's prebuilt AMX variant: 10.7–13.1).
//
// GCC 12 (Debian 12) compiles them wrong: its _tile_loadconfig tells the optimizer it reads 8
// bytes, so the stores that fill in the rest of ggml's 64-byte tile configuration are dropped, and
// the first tile instruction kills the process (every Q8_0 generation died with SIGILL). So:
// 1. ggml's tile set-up gets a compiler barrier (patchTileConfig), which makes the compiler keep
//    those stores;
// 2. native/amxProbe.cpp, that set-up compiled as ggml is, must then run here, or the build gets
//    -mno-amx-*: that covers a kernel that refuses AMX, and a llama.cpp whose set-up the patch no
//    longer finds. -mno-amx-* turns off AMX alone: AVX-512, VNNI and the rest of -march=native stay
//    (an explicit -mno-* flag wins over -march wherever it stands; test/unit/amxBuild.test.ts).
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";

export const noAmxFlags = ["-mno-amx-tile", "-mno-amx-int8", "-mno-amx-bf16"];

const loadAnchor = "    _tile_loadconfig(&tc);\n";
const barrier = "    // chatserve (scripts/amxBuild.mjs): GCC 12's _tile_loadconfig claims to read 8 bytes of tc;\n" +
    "    // without this barrier the stores above are dropped and the first tile instruction faults.\n" +
    "    __asm__ volatile(\"\" : : \"r\"(&tc) : \"memory\");\n";

/** ggml's AMX kernels in the llama.cpp source bundled with node-llama-cpp. */
export function amxKernelsFile() {
    const entry = fileURLToPath(import.meta.resolve("node-llama-cpp"));
    return path.join(entry, "..", "..", "llama", "llama.cpp", "ggml", "src", "ggml-cpu", "amx", "mmq.cpp");
}

/**
 * Puts the barrier before ggml's one _tile_loadconfig. Idempotent. "patched", "present", or
 * "unsupported" (no such file, or not exactly one such call: nothing is changed).
 */
export function patchTileConfig(file = amxKernelsFile()) {
    if (!fs.existsSync(file))
        return "unsupported";
    const source = fs.readFileSync(file, "utf8");
    if (source.includes(barrier + loadAnchor))
        return "present";
    if (source.split(loadAnchor).length !== 2)
        return "unsupported";
    fs.writeFileSync(file, source.replace(loadAnchor, barrier + loadAnchor));
    return "patched";
}

/** CMake's C++ compiler: $CXX (which may carry arguments), else c++. */
function cxxCommand() {
    return (process.env.CXX?.trim() || "c++").split(/\s+/);
}

/**
 * `{flags, reason}`: the compiler flags the build needs (none, or noAmxFlags) and why.
 * `patched`: whether ggml's source has the barrier, which the probe then has too.
 */
export function amxBuildFlags(patched) {
    const [cxx, ...cxxArgs] = cxxCommand();
    const defines = execFileSync(cxx, [...cxxArgs, "-march=native", "-dM", "-E", "-x", "c++", "/dev/null"], {encoding: "utf8"});
    if (!defines.includes("__AMX_TILE__"))
        return {flags: [], reason: "no AMX in -march=native"};

    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-amx-"));
    try {
        const probe = path.join(folder, "amxProbe");
        const source = fileURLToPath(new URL("../native/amxProbe.cpp", import.meta.url));
        execFileSync(cxx, [...cxxArgs, "-O3", "-march=native", `-DCHATSERVE_TILE_BARRIER=${patched ? 1 : 0}`, source, "-o", probe], {stdio: ["ignore", "ignore", "pipe"]});
        execFileSync(probe, [], {stdio: "ignore"});
        return {flags: [], reason: `AMX runs${patched ? "" : " (without chatserve's barrier)"}`};
    } catch (error) {
        const why = error?.signal != null ? `killed by ${error.signal}` : error?.status === 2 ? "the kernel refused AMX" : "failed";
        return {flags: noAmxFlags, reason: `AMX code from ${cxx} does not run here (probe ${why}${patched ? "" : ", without chatserve's barrier"}): building without AMX`};
    } finally {
        fs.rmSync(folder, {recursive: true, force: true});
    }
}

/**
 * The environment that gives CMake's compilers these flags. As part of $CC and $CXX, not
 * CFLAGS/CXXFLAGS: cmake-js sets CMAKE_CXX_FLAGS itself, so CMake would ignore $CXXFLAGS; and not
 * as node-llama-cpp CMake options, which would change the build's folder name and so hide it from
 * a plain getLlama().
 */
export function compilerEnv(flags) {
    if (flags.length === 0)
        return {};
    return {
        CC: [process.env.CC?.trim() || "cc", ...flags].join(" "),
        CXX: [...cxxCommand(), ...flags].join(" ")
    };
}
