import {spawn, spawnSync} from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {describe, expect, it} from "vitest";

/** The `chatserve` bin as a user runs it (dist/ is built by npm install's prepare step and by pretest). */
const bin = fileURLToPath(new URL("../../bin/chatserve.cjs", import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], {encoding: "utf8", timeout: 30_000});

describe("the chatserve command", () => {
    it("documents every flag in --help", () => {
        const result = run("--help");
        expect(result.status).toBe(0);
        for (const flag of ["--models", "--host", "--port", "--api-key", "--gpu", "--ctx-size", "--threads", "--decode-threads", "--flash-attention", "--parallel", "--max-queue", "--cors-origin", "--log-level"])
            expect(result.stdout).toContain(flag);
    });

    it("prints its version", () => {
        const result = run("--version");
        expect(result.status).toBe(0);
        expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    });

    it.each([
        [["--port", "abc"], /port/],
        [["--gpu", "tpu"], /gpu/],
        [["--no-such-flag"], /unknown option/],
        [["--threads", "0"], /threads/],
        [["--flash-attention", "sometimes"], /flash-attention/]
    ])("rejects %j with a one-line explanation and a non-zero exit", (args, pattern) => {
        const result = run(...args);
        expect(result.status).not.toBe(0);
        expect(result.stderr.split("\n")[0]).toMatch(pattern);
    });

    it("starts with an empty models folder, says how to add a model, serves, and exits cleanly on SIGTERM", async () => {
        const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-cli-"));
        const child = spawn(process.execPath, [bin, "--models", modelsDir, "--port", "0", "--threads", "1"], {stdio: ["ignore", "pipe", "pipe"]});
        let output = "";
        child.stdout.on("data", (data: Buffer) => output += data.toString());
        child.stderr.on("data", (data: Buffer) => output += data.toString());
        try {
            const url = await new Promise<string>((resolve, reject) => {
                child.stdout.on("data", () => {
                    const match = /listening on (http:\/\/\S+\/v1)/.exec(output);
                    if (match != null && output.includes("chatserve picks it up"))
                        resolve(match[1]!);
                });
                child.once("exit", () => reject(new Error(`exited early:\n${output}`)));
            });
            expect(output).toMatch(/backend: (CPU|CUDA|Metal|Vulkan) \((OpenMP build, )?1 inference thread, 1 for decoding\)/);
            expect(output).toContain("Copy a .gguf file");
            const models = await (await fetch(`${url}/models`)).json() as {object: string, data: unknown[]};
            expect(models).toEqual({object: "list", data: []});

            const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
            child.kill("SIGTERM");
            expect(await exited).toBe(0);
        } finally {
            child.kill("SIGKILL");
            await fs.rm(modelsDir, {recursive: true, force: true});
        }
    });
});
