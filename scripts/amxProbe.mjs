// Whether buildCpuBackend.mjs may leave AMX on: llama.cpp is compiled with GGML_NATIVE, and where
// the CPU has AMX, -march=native turns on ggml's AMX kernels whatever GGML_AMX_* say. On the
// 2-core Xeon (with AMX) machines this project builds and tests on (Debian 12, GCC 12) they
// were compiled wrong and killed the server on its first Q8_0 generation (native/amxProbe.cpp
// says why). So AMX stays on only where the probe, compiled as ggml is, runs; otherwise the build
// gets -mno-amx-*, which turns off AMX alone: AVX-512, VNNI and the rest of -march=native stay
// (an explicit -mno-* flag wins over -march wherever it stands on the command line; checked by
// test/unit/amxProbe.test.ts).
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";

export const noAmxFlags = ["-mno-amx-tile", "-mno-amx-int8", "-mno-amx-bf16"];

/** CMake's C++ compiler: $CXX (which may carry arguments), else c++. */
function cxxCommand() {
    return (process.env.CXX?.trim() || "c++").split(/\s+/);
}

/**
 * `{flags, reason}`: the compiler flags the build needs for AMX (none, or noAmxFlags) and why,
 * for the install log.
 */
export function amxBuildFlags() {
    const [cxx, ...cxxArgs] = cxxCommand();
    const defines = execFileSync(cxx, [...cxxArgs, "-march=native", "-dM", "-E", "-x", "c++", "/dev/null"], {encoding: "utf8"});
    if (!defines.includes("__AMX_TILE__"))
        return {flags: [], reason: "no AMX in -march=native"};

    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-amx-"));
    try {
        const probe = path.join(folder, "amxProbe");
        const source = fileURLToPath(new URL("../native/amxProbe.cpp", import.meta.url));
        execFileSync(cxx, [...cxxArgs, "-O3", "-march=native", source, "-o", probe], {stdio: ["ignore", "ignore", "pipe"]});
        execFileSync(probe, [], {stdio: "ignore"});
        return {flags: [], reason: "AMX runs"};
    } catch (error) {
        const why = error?.signal != null ? `killed by ${error.signal}` : error?.status === 2 ? "the kernel refused AMX" : "failed";
        return {flags: noAmxFlags, reason: `AMX code from ${cxx} does not run here (probe ${why}): building without AMX`};
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
