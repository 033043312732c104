// What `npm install` builds for the CPU (scripts/buildCpuBackend.mjs) and what the server then
// loads. Only where the install could build: Linux with cmake, git and a C++ compiler on PATH, no
// GPU, not opted out. Elsewhere the prebuilt binaries are used and there is nothing to check.
import {execFileSync} from "node:child_process";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import pino from "pino";
import {describe, expect, it} from "vitest";
import {startLlamaRuntime} from "../../../src/engine/llamaRuntime.js";

const onPath = (tool: string) => {
    try {
        execFileSync(tool, ["--version"], {stdio: "ignore"});
        return true;
    } catch {
        return false;
    }
};
const installCouldBuild = process.platform === "linux" && process.env.CHATSERVE_CPU_BUILD !== "prebuilt" &&
    ["cmake", "git", "c++"].every(onPath);

describe.skipIf(!installCouldBuild)("the CPU build made by npm install", () => {
    it("is an OpenMP build of llama.cpp with chatserve's decode call, loaded by the server, decoding with every thread", async (context) => {
        const probe = await getLlama({gpu: "auto", build: "never", logLevel: LlamaLogLevel.error});
        const gpu = probe.gpu;
        await probe.dispose();
        if (gpu !== false)
            return context.skip(); // the install kept the GPU's prebuilt binaries

        const runtime = await startLlamaRuntime({gpu: "cpu", threads: 2, decodeThreads: undefined, flashAttention: "auto"}, pino({level: "silent"}));
        try {
            expect(runtime.llama.buildType, "no local build: npm install's postinstall (scripts/buildCpuBackend.mjs) makes it; run npm install").toBe("localBuild");
            expect(runtime.openmp).toBe(true);
            // scripts/addonSource.mjs adds it to node-llama-cpp's addon source (native/decodeBatch.cpp).
            expect(typeof (runtime.llama as unknown as {_bindings: Record<string, unknown>})._bindings.chatserveDecodeBatch).toBe("function");
            expect(runtime.decodeThreads).toBe(2);
        } finally {
            await runtime.llama.dispose();
        }
    });

    it("passes the install's own check: runs a Q8_0 model through its matrix kernels", (context) => {
        // The check step of scripts/buildCpuBackend.mjs, in a child as the install runs it: a build
        // that crashes there (an AMX kernel compiled wrong once did) is not kept. It also keeps the
        // check model of scripts/checkModel.mjs loading on this node-llama-cpp, or every install
        // would fall back to the prebuilt binaries.
        const output = execFileSync(process.execPath, ["scripts/buildCpuBackend.mjs", "--check"], {encoding: "utf8"});
        const check = JSON.parse(output.trim().split("\n").at(-1)!) as {buildType: string, openmp: boolean, generated: number};
        if (check.buildType !== "localBuild")
            return context.skip(); // the install kept the GPU's prebuilt binaries (the test above says)
        expect(check).toMatchObject({openmp: true, generated: 4});
    });
});
