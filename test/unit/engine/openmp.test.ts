import {describe, expect, it} from "vitest";
import {usesOpenMP} from "../../../src/engine/openmp.js";

const maps = (...libraries: string[]) => () => libraries
    .map((library) => `7f0000000000-7f0000001000 r-xp 00000000 08:01 42 ${library}`)
    .join("\n");

describe("usesOpenMP", () => {
    it("sees GNU, LLVM and Intel OpenMP runtimes among the mapped libraries", () => {
        expect(usesOpenMP(maps("/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0"))).toBe(true);
        expect(usesOpenMP(maps("/usr/lib/llvm-17/lib/libomp.so.5"))).toBe(true);
        expect(usesOpenMP(maps("/opt/intel/lib/libiomp5.so"))).toBe(true);
    });

    it("is false for the prebuilt binaries' libraries, or where the maps cannot be read", () => {
        expect(usesOpenMP(maps(
            "/app/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-cpu.so",
            "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"
        ))).toBe(false);
        expect(usesOpenMP(() => "")).toBe(false);
    });
});
