import {execFileSync} from "node:child_process";
import {describe, expect, it} from "vitest";
// @ts-expect-error an install script in plain JavaScript, without type declarations
import {compilerEnv, noAmxFlags} from "../../scripts/amxProbe.mjs";

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

describe("the compiler flags that build llama.cpp without AMX (scripts/amxProbe.mjs)", () => {
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
