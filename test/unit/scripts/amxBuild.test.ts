import {execFileSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {afterEach, describe, expect, it} from "vitest";
// @ts-expect-error an install script in plain JavaScript, without type declarations
import {compilerEnv, noAmxFlags, patchTileConfig} from "../../../scripts/amxBuild.mjs";

/** ggml_tile_config_init as ggml-cpu/amx/mmq.cpp has it (llama.cpp in node-llama-cpp 3.22). */
const tileConfigInit = [
    "inline void ggml_tile_config_init(void) {",
    "    alignas(64) tile_config_t tc = {};",
    "    tc.palette_id = 1;",
    "    tc.rows[7] = 16;  tc.colsb[7] = 64;",
    "",
    "    _tile_loadconfig(&tc);",
    "    done = true;",
    "}",
    ""
].join("\n");

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => fs.rmSync(folder, {recursive: true, force: true})));

function kernelsFile(source: string): string {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-amx-"));
    folders.push(folder);
    fs.writeFileSync(path.join(folder, "mmq.cpp"), source);
    return path.join(folder, "mmq.cpp");
}

describe("the barrier in ggml's AMX tile set-up (scripts/amxBuild.mjs)", () => {
    it("goes right before the one _tile_loadconfig, once, however often the install runs", () => {
        const file = kernelsFile(tileConfigInit);
        expect(patchTileConfig(file)).toBe("patched");
        expect(patchTileConfig(file)).toBe("present");
        const patched = fs.readFileSync(file, "utf8");
        expect(patched.match(/__asm__ volatile\(""/g)).toHaveLength(1);
        expect(patched).toMatch(/: "memory"\);\n {4}_tile_loadconfig\(&tc\);\n/);
    });

    it("changes nothing where the set-up is not as expected", () => {
        const twice = tileConfigInit + tileConfigInit;
        const file = kernelsFile(twice);
        expect(patchTileConfig(file)).toBe("unsupported");
        expect(fs.readFileSync(file, "utf8")).toBe(twice);
        expect(patchTileConfig(path.join(path.dirname(file), "missing.cpp"))).toBe("unsupported");
    });

    it("finds its anchor in the llama.cpp that node-llama-cpp bundles", () => {
        // As the install found it (its own barrier, if there, taken out again).
        const bundled = fs.readFileSync("node_modules/node-llama-cpp/llama/llama.cpp/ggml/src/ggml-cpu/amx/mmq.cpp", "utf8")
            .replace(/ {4}\/\/ chatserve \(scripts\/amxBuild\.mjs\)[\s\S]*?"memory"\);\n/, "");
        expect(bundled).not.toMatch(/chatserve/);
        expect(patchTileConfig(kernelsFile(bundled))).toBe("patched");
    });
});

const nativeDefines = (cxx: string) => {
    const [command, ...args] = cxx.split(" ");
    return execFileSync(command!, [...args, "-march=native", "-dM", "-E", "-x", "c++", "/dev/null"], {encoding: "utf8"});
};
const hasCompiler = (() => {
    try {
        nativeDefines("c++");
        return true;
    } catch {
        return false;
    }
})();

describe("the compiler flags that build llama.cpp without AMX (scripts/amxBuild.mjs)", () => {
    it("are none where AMX may stay on", () => {
        expect(compilerEnv([])).toEqual({});
    });

    it("go into $CC and $CXX, after the compiler and the arguments it already has", () => {
        const saved = {CC: process.env.CC, CXX: process.env.CXX};
        try {
            process.env.CC = "gcc-12";
            process.env.CXX = "ccache g++-12";
            expect(compilerEnv(noAmxFlags)).toEqual({CC: `gcc-12 ${noAmxFlags.join(" ")}`, CXX: `ccache g++-12 ${noAmxFlags.join(" ")}`});
            delete process.env.CC;
            delete process.env.CXX;
            expect(compilerEnv(noAmxFlags)).toEqual({CC: `cc ${noAmxFlags.join(" ")}`, CXX: `c++ ${noAmxFlags.join(" ")}`});
        } finally {
            for (const [name, value] of Object.entries(saved)) {
                if (value == null) delete process.env[name];
                else process.env[name] = value;
            }
        }
    });

    // ggml puts -march=native after them on the command line; explicit -mno-* flags must still win.
    it.skipIf(!hasCompiler)("turn off AMX before -march=native and leave the rest of this CPU's instructions", () => {
        const native = nativeDefines("c++");
        const withoutAmx = nativeDefines(`c++ ${noAmxFlags.join(" ")}`);
        expect(withoutAmx).not.toMatch(/__AMX_/);
        const others = (defines: string) => defines.match(/__(?:AVX|FMA|F16C|SSE)\w*__/g)?.sort() ?? [];
        expect(others(withoutAmx)).toEqual(others(native));
    });
});
