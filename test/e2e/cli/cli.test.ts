import {spawn, spawnSync, type ChildProcess} from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {endOfTurnBanned} from "../support/endOfTurn.js";

/** The `chatserve` bin as a user runs it (dist/ is built by npm install's prepare step and by pretest). */
const bin = fileURLToPath(new URL("../../../bin/chatserve.cjs", import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], {encoding: "utf8", timeout: 30_000});

describe("the chatserve command", () => {
    it("documents every flag in --help, on the program and on serve, and lists the other commands", () => {
        for (const args of [["--help"], ["serve", "--help"]]) {
            const result = run(...args);
            expect(result.status).toBe(0);
            for (const flag of ["--models", "--host", "--port", "--api-key", "--gpu", "--ctx-size", "--threads", "--decode-threads", "--flash-attention", "--parallel", "--max-queue", "--model-alias", "--cors-origin", "--log-level"])
                expect(result.stdout).toContain(flag);
        }
        const help = run("--help").stdout;
        for (const command of [/^ {2}serve \[options\]/m, /^ {2}ps \[options\]/m, /^ {2}ls\|list \[options\]/m, /^ {2}pull \[options\] <model>/m])
            expect(help).toMatch(command);
        expect(run("pull", "--help").stdout).toContain("--hf-endpoint");
        expect(run("ps", "--help").stdout).toContain("--url");
    });

    it("names the commands when given one it does not know", () => {
        const result = run("srve");
        expect(result.status).not.toBe(0);
        expect(result.stderr.split("\n")[0]).toMatch(/unknown command 'srve' \(the commands are serve, ps, ls, pull and cache/);
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
        [["--flash-attention", "sometimes"], /flash-attention/],
        [["--api-key", " "], /api-key/],
        [["--model-alias", "gpt-4o"], /model-alias.*'gpt-4o' is not NAME=ID/],
        [["--model-alias", "a=b", "--model-alias", "a=c"], /^chatserve: --model-alias 'a' is given twice, for 'b' and for 'c'/]
    ])("rejects %j with a one-line explanation and a non-zero exit", (args, pattern) => {
        const result = run(...args);
        expect(result.status).not.toBe(0);
        expect(result.stderr.split("\n")[0]).toMatch(pattern);
    });

    it("explains a port in use and a models path that is not a folder in one line, and exits 1", async () => {
        const holder = net.createServer();
        await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
        const port = (holder.address() as net.AddressInfo).port;
        const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-cli-"));
        const file = path.join(modelsDir, "not-a-folder.txt");
        await fs.writeFile(file, "");
        try {
            const cases: Array<[string[], RegExp]> = [
                [["--models", modelsDir, "--port", String(port)], new RegExp(`^chatserve: port ${port} is already in use`)],
                [["--models", file, "--port", "0"], /^chatserve: the models folder cannot be read .*--models/]
            ];
            for (const [args, pattern] of cases) {
                const result = await new Promise<{status: number | null, stderr: string}>((resolve) => {
                    const child = spawn(process.execPath, [bin, ...args], {stdio: ["ignore", "ignore", "pipe"]});
                    let stderr = "";
                    child.stderr.on("data", (data: Buffer) => stderr += data.toString());
                    child.once("exit", (status) => resolve({status, stderr}));
                });
                expect(result.status).toBe(1);
                const lines = result.stderr.split("\n").filter((line) => line.startsWith("chatserve:"));
                expect(lines).toHaveLength(1);
                expect(lines[0]).toMatch(pattern);
                expect(result.stderr).not.toMatch(/\n\s+at /);
            }
        } finally {
            holder.close();
        }
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

    it("waits for a running reply on the first Ctrl-C, and ends at once, by the signal, on the second", async () => {
        const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-cli-"));
        // A tiny model writes 1,800 tokens in about a tenth of a second: the reply must be long
        // enough to be running still when the second Ctrl-C comes (16,000 tokens, its end of turn banned).
        await fs.symlink(await buildTinyChatModel(undefined, {trainedContext: 16_384}), path.join(modelsDir, "tiny.gguf"));
        const child = spawn(process.execPath, [bin, "--models", modelsDir, "--port", "0", "--threads", "1", "--ctx-size", "16384"], {stdio: ["ignore", "pipe", "pipe"]});
        let output = "";
        child.stdout.on("data", (data: Buffer) => output += data.toString());
        try {
            const url = await new Promise<string>((resolve) => child.stdout.on("data", () => {
                const match = /listening on (http:\/\/\S+\/v1)/.exec(output);
                if (match != null)
                    resolve(match[1]!);
            }));
            // The end of turn banned: a random-weight reply could otherwise end within the 100 ms below.
            const banned = await endOfTurnBanned(url, "tiny");
            const reply = await fetch(`${url}/chat/completions`, {
                method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify({model: "tiny", messages: [{role: "user", content: "A long story."}], max_tokens: 16_000, stream: true, logit_bias: banned})
            });
            await reply.body!.getReader().read(); // the reply is running
            const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once("exit", (code, signal) => resolve([code, signal])));
            child.kill("SIGINT");
            await new Promise((resolve) => setTimeout(resolve, 100));
            expect(child.exitCode).toBeNull(); // still finishing the reply
            // process.exit() would wait for llama.cpp's running batch; the signal's default does not.
            child.kill("SIGINT");
            expect(await exited).toEqual([null, "SIGINT"]);
        } finally {
            child.kill("SIGKILL");
            await fs.rm(modelsDir, {recursive: true, force: true});
        }
    });

    it("serves as `chatserve serve` too", async () => {
        const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-cli-"));
        const server = await startServer(["serve", "--models", modelsDir, "--port", "0", "--threads", "1"]);
        try {
            expect(await (await fetch(`${server.url}/v1/models`)).json()).toEqual({object: "list", data: []});
        } finally {
            server.child.kill("SIGKILL");
            await fs.rm(modelsDir, {recursive: true, force: true});
        }
    });

    it("ls lists the folder's models without a server, with a broken file's reason, and explains a missing folder", async () => {
        const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-cli-"));
        await fs.symlink(await buildTinyChatModel(), path.join(modelsDir, "tiny.gguf"));
        await fs.writeFile(path.join(modelsDir, "broken.gguf"), "not a model");
        try {
            const result = run("ls", "--models", modelsDir);
            expect(result.status).toBe(0);
            const lines = result.stdout.trimEnd().split("\n");
            expect(lines[0]).toMatch(/^NAME +SIZE +ARCHITECTURE +QUANTIZATION +CONTEXT +CAPABILITIES$/);
            expect(lines[1]).toMatch(/^broken +11 bytes +- +- +- +unavailable: not a readable GGUF file/);
            expect(lines[2]).toMatch(/^tiny +\d+ KiB +llama +F32 +2048 +chat, completion$/);

            const missing = run("ls", "--models", path.join(modelsDir, "nowhere"));
            expect(missing.status).toBe(1);
            expect(missing.stderr).toBe(`chatserve: the models folder ${path.join(modelsDir, "nowhere")} does not exist: point --models at your models, or pull one with chatserve pull\n`);
        } finally {
            await fs.rm(modelsDir, {recursive: true, force: true});
        }
    });

    it("ps says clearly when no server answers", async () => {
        const port = await freePort();
        const result = run("ps", "--url", `http://127.0.0.1:${port}`);
        expect(result.status).toBe(1);
        expect(result.stderr).toMatch(new RegExp(`^chatserve: no chatserve answers at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): start one with`));
        expect(result.stderr.split("\n").filter((line) => line !== "")).toHaveLength(1);
    });

    it("ps shows what a running server has loaded, with its key, as the server reports it", async () => {
        const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-cli-"));
        await fs.symlink(await buildTinyChatModel(), path.join(modelsDir, "tiny.gguf"));
        const server = await startServer(["--models", modelsDir, "--port", "0", "--threads", "1", "--api-key", "secret"]);
        try {
            const ps = (...args: string[]) => run("ps", "--url", `${server.url}/v1`, ...args);
            expect(ps("--api-key", "secret").stdout).toBe("NAME   MEMORY   PROCESSOR   CONTEXT   CACHED   UNTIL\n(no model is loaded: a model loads on its first request)\n");
            expect(ps()).toMatchObject({status: 1, stderr: `chatserve: the server at ${server.url} requires an API key: pass --api-key KEY or set CHATSERVE_API_KEY\n`});
            expect(ps("--api-key", "wrong")).toMatchObject({status: 1, stderr: `chatserve: the server at ${server.url} refused that API key\n`});

            const reply = await fetch(`${server.url}/v1/chat/completions`, {
                method: "POST", headers: {"Content-Type": "application/json", Authorization: "Bearer secret"},
                body: JSON.stringify({model: "tiny", messages: [{role: "user", content: "Hi"}], max_tokens: 2})
            });
            expect(reply.status).toBe(200);
            const listed = spawnSync(process.execPath, [bin, "ps", "--url", server.url], {encoding: "utf8", timeout: 30_000, env: {...process.env, CHATSERVE_API_KEY: "secret"}});
            expect(listed.status).toBe(0);
            const models = await (await fetch(`${server.url}/v1/models`, {headers: {Authorization: "Bearer secret"}})).json() as {data: Array<{id: string, context_length: number}>};
            const lines = listed.stdout.trimEnd().split("\n");
            expect(lines).toHaveLength(2);
            expect(lines[1]).toMatch(new RegExp(`^tiny +[\\d.]+ (KiB|MiB) +100% CPU +${models.data[0]!.context_length} +(none|[\\d.]+ \\w+ (RAM|disk)( \\+ [\\d.]+ \\w+ disk)?) +until memory is needed$`));
        } finally {
            server.child.kill("SIGKILL");
            await fs.rm(modelsDir, {recursive: true, force: true});
        }
    });
});

/** Starts chatserve and resolves once it listens, with its base URL (no /v1). */
async function startServer(args: string[]): Promise<{child: ChildProcess, url: string}> {
    const child = spawn(process.execPath, [bin, ...args], {stdio: ["ignore", "pipe", "pipe"]});
    let output = "";
    child.stderr!.on("data", (data: Buffer) => output += data.toString());
    const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on("data", (data: Buffer) => {
            output += data.toString();
            const match = /listening on (http:\/\/\S+)\/v1/.exec(output);
            if (match != null)
                resolve(match[1]!);
        });
        child.once("exit", () => reject(new Error(`exited early:\n${output}`)));
    });
    return {child, url};
}

/** A port nothing listens on (one the system just gave out and took back). */
async function freePort(): Promise<number> {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as net.AddressInfo).port;
    await new Promise((resolve) => holder.close(resolve));
    return port;
}
