import {spawn, type ChildProcess} from "node:child_process";
import {createHash} from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {afterAll, beforeAll, beforeEach, describe, expect, it} from "vitest";
import {findModelFiles} from "../../../src/models/modelFiles.js";
import {downloadableModel} from "../../fixtures/gguf/downloadableModels.js";
import {HubMirror} from "../support/hubMirror.js";

/** `chatserve pull` as a user runs it, against a local mirror of the hub: nothing leaves the machine. */
const bin = fileURLToPath(new URL("../../../bin/chatserve.cjs", import.meta.url));
const MiB = 1024 * 1024;

const tiny = {
    q8: downloadableModel({bytes: 300_000, fileType: 7, seed: 2}),
    q4: downloadableModel({bytes: 200_000, fileType: 15, seed: 3}),
    projector: downloadableModel({bytes: 100_000, projector: true, fileType: 1, seed: 4})
};
const split = [1, 2].map((no) => downloadableModel({bytes: 150_000, fileType: 7, split: {no, count: 2}, seed: 10 + no}));
// Bigger than two of the downloader's 5 MiB chunks, so that an interruption can fall after a finished chunk.
const big = downloadableModel({bytes: 12 * MiB, fileType: 15, seed: 5});
const plain = downloadableModel({bytes: 50_000, fileType: 1, seed: 6});

let mirror: HubMirror;
let modelsDir: string;

beforeAll(async () => {
    mirror = await HubMirror.start([
        {id: "tester/Tiny-GGUF", files: {"tiny-Q8_0.gguf": tiny.q8, "tiny-Q4_K_M.gguf": tiny.q4, "mmproj-tiny-F16.gguf": tiny.projector, "README.md": Buffer.from("# Tiny")}},
        {id: "tester/Split-GGUF", files: {"Q8_0/split-Q8_0-00001-of-00002.gguf": split[0]!, "Q8_0/split-Q8_0-00002-of-00002.gguf": split[1]!}},
        {id: "tester/Big-GGUF", files: {"big-Q4_K_M.gguf": big}}
    ], {"plain.gguf": plain});
});
afterAll(async () => {
    await mirror.close();
});
beforeEach(async () => {
    modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-pull-"));
});

type Run = {status: number | null, stdout: string, stderr: string};

/** Runs chatserve (not spawnSync: the mirror answers from this process). */
function start(args: string[]): {child: ChildProcess, done: Promise<Run>, stderr: () => string} {
    // The hub's address comes from --hf-endpoint alone, whatever the environment running the tests says.
    const {HF_ENDPOINT: _hf, MODEL_ENDPOINT: _model, HF_TOKEN: _token, ...env} = process.env;
    const child = spawn(process.execPath, [bin, ...args], {env, stdio: ["ignore", "pipe", "pipe"]});
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (data: Buffer) => stdout += data.toString());
    child.stderr!.on("data", (data: Buffer) => stderr += data.toString());
    const done = new Promise<Run>((resolve) => child.once("exit", (status) => resolve({status, stdout, stderr})));
    return {child, done, stderr: () => stderr};
}

const pull = (source: string, ...extra: string[]) => start(["pull", source, "--models", modelsDir, "--hf-endpoint", mirror.url, ...extra]);

// Files are compared by hash: a deep equality of megabyte buffers takes vitest minutes.
const hash = (bytes: Buffer | undefined) => createHash("sha256").update(bytes!).digest("hex");
const fileHash = async (file: string) => hash(await fs.readFile(file));

/** Every file under the models folder, relative to it, `.partial/` included. */
async function filesIn(dir: string): Promise<string[]> {
    const entries = await fs.readdir(dir, {recursive: true, withFileTypes: true});
    return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name))).sort();
}

describe("chatserve pull", () => {
    it("pulls a repository's quantization into a folder named after it, with the vision projector beside it, and says the model's id", async () => {
        const {status, stdout, stderr} = await pull("hf:tester/Tiny-GGUF:q8_0").done;
        expect(stderr).toContain("pulling tiny-Q8_0.gguf and its vision projector mmproj-tiny-F16.gguf from hf:tester/Tiny-GGUF");
        expect(stderr).toMatch(/100% {2}391 KiB of 391 KiB/); // plain progress lines: stderr is not a terminal here
        expect(status).toBe(0);
        expect(stdout).toContain("model id: tiny-Q8_0");
        expect(await filesIn(modelsDir)).toEqual(["Tiny-GGUF/mmproj-tiny-F16.gguf", "Tiny-GGUF/tiny-Q8_0.gguf"]);
        expect(await fileHash(path.join(modelsDir, "Tiny-GGUF/tiny-Q8_0.gguf"))).toBe(hash(tiny.q8));
        expect(await fileHash(path.join(modelsDir, "Tiny-GGUF/mmproj-tiny-F16.gguf"))).toBe(hash(tiny.projector));

        // Pulled again: nothing is downloaded.
        const requests = mirror.requests.length;
        const again = await pull("hf:tester/Tiny-GGUF:Q8_0").done;
        expect(again.status).toBe(0);
        expect(again.stdout).toContain("already in the models folder");
        expect(mirror.requests.slice(requests).filter((request) => request.range != null)).toEqual([]);
    });

    it("pulls one file by its path, and every part of a split model, which the folder lists as one model", async () => {
        const single = await pull("hf:tester/Tiny-GGUF/tiny-Q4_K_M.gguf").done;
        expect(single.status).toBe(0);
        const splitRun = await pull("hf:tester/Split-GGUF/Q8_0/split-Q8_0-00001-of-00002.gguf").done;
        expect(splitRun.stderr).toContain("pulling split-Q8_0-00001-of-00002.gguf (2 parts) from hf:tester/Split-GGUF");
        expect(splitRun.status).toBe(0);
        expect(splitRun.stdout).toContain("model id: split-Q8_0");
        expect(await filesIn(modelsDir)).toEqual([
            "Split-GGUF/split-Q8_0-00001-of-00002.gguf", "Split-GGUF/split-Q8_0-00002-of-00002.gguf",
            "Tiny-GGUF/mmproj-tiny-F16.gguf", "Tiny-GGUF/tiny-Q4_K_M.gguf"
        ]);
        expect(await fileHash(path.join(modelsDir, "Split-GGUF/split-Q8_0-00002-of-00002.gguf"))).toBe(hash(split[1]));
        expect((await findModelFiles(modelsDir)).map((group) => [group.id, group.files.length])).toEqual([["split-Q8_0", 2], ["tiny-Q4_K_M", 1]]);

        const listed = await start(["ls", "--models", modelsDir]).done;
        expect(listed.status).toBe(0);
        expect(listed.stdout).toMatch(/^split-Q8_0 +\d+ KiB +llama +Q8_0 +4096 +chat, completion$/m);
        // The repository's projector came too, and pairs with the model in its folder.
        expect(listed.stdout).toMatch(/^tiny-Q4_K_M +\d+ KiB +llama +Q4_K_M +4096 +chat, completion, vision \(mmproj-tiny-F16\.gguf\)$/m);
    });

    it("pulls a plain URL's file into the models folder itself", async () => {
        const {status, stdout} = await start(["pull", `${mirror.url}files/plain.gguf`, "--models", modelsDir]).done;
        expect(status).toBe(0);
        expect(stdout).toContain("model id: plain");
        expect(await filesIn(modelsDir)).toEqual(["plain.gguf"]);
        expect(await fileHash(path.join(modelsDir, "plain.gguf"))).toBe(hash(plain));
    });

    it("answers a wrong quantization with what the repository has, and a wrong repository or file with what to check", async () => {
        const quant = await pull("hf:tester/Tiny-GGUF:Q5_K_M").done;
        expect(quant.status).toBe(1);
        expect(quant.stderr).toBe([
            "chatserve: hf:tester/Tiny-GGUF has no Q5_K_M file.",
            "It has:",
            "  Q4_K_M     tiny-Q4_K_M.gguf  196 KiB",
            "  Q8_0       tiny-Q8_0.gguf  293 KiB",
            "Pull one with: chatserve pull hf:tester/Tiny-GGUF:Q4_K_M",
            ""
        ].join("\n"));

        const repo = await pull("hf:tester/Nothing-GGUF:Q4_K_M").done;
        expect(repo.status).toBe(1);
        expect(repo.stderr).toMatch(/^chatserve: 127\.0\.0\.1:\d+ has no repository tester\/Nothing-GGUF that it shows without signing in: check the name/);

        const file = await pull("hf:tester/Tiny-GGUF/tiny-Q2_K.gguf").done;
        expect(file.status).toBe(1);
        expect(file.stderr).toMatch(/^chatserve: hf:tester\/Tiny-GGUF has no file tiny-Q2_K\.gguf\.\nIt has:\n {2}Q4_K_M/);

        mirror.refuse("tiny-Q4_K_M.gguf", 401);
        try {
            const gated = await pull("hf:tester/Tiny-GGUF:Q4_K_M").done;
            expect(gated.status).toBe(1);
            expect(gated.stderr).toMatch(/^chatserve: 127\.0\.0\.1:\d+ answered 401 Unauthorized for tiny-Q4_K_M\.gguf: the repository is private or gated: accept its terms on its page and set HF_TOKEN/m);
        } finally {
            mirror.refuse("tiny-Q4_K_M.gguf", null);
        }

        const url = await start(["pull", `${mirror.url}files/missing.gguf`, "--models", modelsDir]).done;
        expect(url.status).toBe(1);
        expect(url.stderr).toBe(`chatserve: 127.0.0.1:${new URL(mirror.url).port} answered 404 Not Found for ${mirror.url}files/missing.gguf: check the URL\n`);
        expect(await findModelFiles(modelsDir)).toEqual([]);
    });

    it("resumes an interrupted download where it stopped, and shows no .gguf file until the whole file is there", async () => {
        mirror.interrupt("big-Q4_K_M.gguf", 7 * MiB, "stall");
        const first = pull("hf:tester/Big-GGUF:Q4_K_M");
        const partial = path.join(modelsDir, "Big-GGUF/.partial/big-Q4_K_M.gguf.ipull");
        await until(async () => (await recordedChunks(partial, big.length))[0] === finished,
            () => `${mirror.sentBytes("big-Q4_K_M.gguf")} bytes sent; the pull said:\n${first.stderr()}`);

        // Mid-download, the folder holds no model a server would list.
        expect(await findModelFiles(modelsDir)).toEqual([]);
        expect((await filesIn(modelsDir)).filter((file) => file.endsWith(".gguf"))).toEqual([]);

        first.child.kill("SIGINT");
        const interrupted = await first.done;
        expect(interrupted.status).toBe(1);
        expect(interrupted.stderr).toContain("chatserve: interrupted: what was downloaded is kept in the .partial folder; run the same command again to resume");
        expect(await findModelFiles(modelsDir)).toEqual([]);

        const mark = mirror.requests.length;
        const second = await pull("hf:tester/Big-GGUF:Q4_K_M").done;
        expect(second.stderr).toMatch(/resuming: [\d.]+ MiB of 12 MiB were already downloaded/);
        expect(second.status).toBe(0);
        const ranges = mirror.requests.slice(mark).filter((request) => request.path.endsWith("big-Q4_K_M.gguf") && request.range != null);
        expect(ranges.length).toBeGreaterThan(0);
        // The first of the downloader's 5 MiB chunks was recorded as finished: no request asks for it again.
        expect(Math.min(...ranges.map((request) => Number(/bytes=(\d+)-/.exec(request.range!)![1])))).toBeGreaterThanOrEqual(5 * MiB);
        expect(mirror.interruptionsLeft()).toBe(0);
        expect(await fileHash(path.join(modelsDir, "Big-GGUF/big-Q4_K_M.gguf"))).toBe(hash(big));
        expect(await filesIn(modelsDir)).toEqual(["Big-GGUF/big-Q4_K_M.gguf"]);
    });

    it("retries a connection cut midway, and the file lands whole", async () => {
        mirror.interrupt("big-Q4_K_M.gguf", 3 * MiB, "cut");
        const {status} = await pull("hf:tester/Big-GGUF:Q4_K_M").done;
        expect(mirror.interruptionsLeft()).toBe(0);
        expect(status).toBe(0);
        expect(await fileHash(path.join(modelsDir, "Big-GGUF/big-Q4_K_M.gguf"))).toBe(hash(big));
    });

    it("does not land a download whose SHA-256 is not the hub's, and deletes it", async () => {
        const damaged = Buffer.from(tiny.q4);
        damaged[damaged.length - 1]! ^= 0xff;
        mirror.serveDamaged("tester/Tiny-GGUF", "tiny-Q4_K_M.gguf", damaged);
        try {
            const {status, stderr} = await pull("hf:tester/Tiny-GGUF:Q4_K_M").done;
            expect(status).toBe(1);
            expect(stderr).toMatch(/^chatserve: the download of tiny-Q4_K_M\.gguf is damaged \(its SHA-256 is [0-9a-f]{64}, the source says [0-9a-f]{64}\); it was deleted: pull again/m);
            expect(await findModelFiles(modelsDir)).toEqual([]);
            expect((await filesIn(modelsDir)).filter((file) => file.endsWith(".gguf") && !file.includes(".partial/"))).toEqual([]);
        } finally {
            mirror.serveDamaged("tester/Tiny-GGUF", "tiny-Q4_K_M.gguf", tiny.q4);
        }
    });
});

/**
 * The state of each chunk in the downloader's progress file (node-llama-cpp's ipull keeps its
 * progress as JSON after the file's bytes: `chunks`, 2 for a finished one); [] before it has any.
 */
async function recordedChunks(file: string, size: number): Promise<number[]> {
    const content = await fs.readFile(file).catch(() => null);
    if (content == null || content.length <= size)
        return [];
    try {
        return (JSON.parse(content.subarray(size).toString()) as {chunks: number[]}).chunks;
    } catch {
        return [];
    }
}
const finished = 2;

/** Waits for `condition`; after 30 s, fails with what `state` says of the wait. */
async function until(condition: () => Promise<boolean>, state: () => string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!await condition()) {
        if (Date.now() > deadline)
            throw new Error(`gave up waiting: ${state()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
}
