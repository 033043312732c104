import fs from "node:fs";

/**
 * Whether the llama.cpp that node-llama-cpp loaded was built with OpenMP, read from the libraries
 * mapped into this process (Linux; elsewhere false). It decides the decode-thread default: with
 * OpenMP ggml keeps its compute threads alive between steps, without it every step starts and
 * joins new ones (node-llama-cpp's prebuilt CPU binaries; `npm install` builds an OpenMP one when
 * it can, see scripts/buildCpuBackend.mjs).
 */
export function usesOpenMP(readMappedLibraries: () => string = readOwnMaps): boolean {
    return /\/lib(?:gomp|omp|iomp5)\.so/.test(readMappedLibraries());
}

function readOwnMaps(): string {
    try {
        return fs.readFileSync("/proc/self/maps", "utf8");
    } catch {
        return "";
    }
}
