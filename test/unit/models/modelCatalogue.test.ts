import {appendFile, mkdir, mkdtemp, rm, symlink, writeFile} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterEach, beforeEach, describe, expect, it, vi} from "vitest";
import {createLogger} from "../../../src/logger.js";
import type {GgufSummary} from "../../../src/models/ggufInspection.js";
import {ModelCatalogue} from "../../../src/models/modelCatalogue.js";

/** A failure the next `stat` of the code under test meets, once. */
const statFailure = vi.hoisted(() => ({next: null as Error | null}));
vi.mock("node:fs/promises", async (importOriginal) => {
    const actual = await importOriginal<typeof import("node:fs/promises")>();
    const stat = ((...args: Parameters<typeof actual.stat>) => {
        const failure = statFailure.next;
        statFailure.next = null;
        return failure == null ? actual.stat(...args) : Promise.reject(failure);
    }) as typeof actual.stat;
    return {...actual, stat, default: {...actual, stat}};
});

let dir: string;
let inspected: string[];

/** Fake header reader: files named corrupt* are unreadable; everything else is a llama chat model. */
async function inspect(file: string): Promise<GgufSummary> {
    inspected.push(path.basename(file));
    if (path.basename(file).startsWith("corrupt"))
        throw new Error("bad magic");
    return {architecture: "llama", trainedContextLength: 4096, capabilities: ["chat", "completion"]};
}

const catalogue = () => new ModelCatalogue(dir, createLogger("silent"), inspect);
const write = (name: string, content = "GGUF") => writeFile(path.join(dir, name), content);
const ids = (c: ModelCatalogue) => c.list().map((model) => model.id).sort();

beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "chatserve-catalogue-"));
    inspected = [];
});
afterEach(async () => {
    await rm(dir, {recursive: true, force: true});
});

describe("ModelCatalogue", () => {
    it("is empty before the first refresh", () => {
        expect(catalogue().list()).toEqual([]);
    });

    it("describes each model from its header and its files", async () => {
        await write("chat.gguf", "12345");
        const c = catalogue();
        await c.refresh();
        expect(c.find("chat")).toMatchObject({
            id: "chat",
            path: path.join(dir, "chat.gguf"),
            files: [path.join(dir, "chat.gguf")],
            sizeBytes: 5,
            architecture: "llama",
            trainedContextLength: 4096,
            capabilities: ["chat", "completion"]
        });
        expect(Number.isInteger(c.find("chat")!.modifiedAt)).toBe(true);
        expect(c.find("chat")!.error).toBeUndefined();
        expect(c.find("nope")).toBeUndefined();
    });

    it("lists an unreadable file as a descriptor with the error, next to good ones", async () => {
        await write("good.gguf");
        await write("corrupt.gguf");
        const c = catalogue();
        await c.refresh();
        expect(ids(c)).toEqual(["corrupt", "good"]);
        expect(c.find("corrupt")).toMatchObject({architecture: null, capabilities: [], trainedContextLength: null});
        expect(c.find("corrupt")!.error).toContain("bad magic");
    });

    it("lists a split model with missing parts as unavailable without reading it", async () => {
        await write("big-00001-of-00002.gguf");
        const c = catalogue();
        await c.refresh();
        expect(c.find("big")!.error).toMatch(/missing 1/);
        expect(inspected).toEqual([]);
    });

    it("picks up a file added after the first refresh, and drops a removed one", async () => {
        await write("first.gguf");
        const c = catalogue();
        await c.refresh();
        expect(ids(c)).toEqual(["first"]);

        await write("second.gguf");
        expect(ids(c)).toEqual(["first"]);
        await c.refresh();
        expect(ids(c)).toEqual(["first", "second"]);

        await rm(path.join(dir, "first.gguf"));
        await c.refresh();
        expect(ids(c)).toEqual(["second"]);
        expect(c.find("first")).toBeUndefined();
    });

    it("does not re-read unchanged files, and keeps their descriptors", async () => {
        await write("a.gguf");
        await write("corrupt.gguf");
        const c = catalogue();
        await c.refresh();
        const before = c.find("a");
        expect(inspected.sort()).toEqual(["a.gguf", "corrupt.gguf"]);

        await c.refresh();
        await c.refresh();
        expect(inspected).toHaveLength(2);
        expect(c.find("a")).toBe(before);
    });

    it("keeps a model whose file cannot be looked at for a moment (out of file handles): that scan fails, nothing changes", async () => {
        await write("a.gguf");
        const c = catalogue();
        await c.refresh();
        const before = c.find("a");
        statFailure.next = Object.assign(new Error("EMFILE: too many open files"), {code: "EMFILE"});
        await expect(c.refresh()).rejects.toThrow("EMFILE");
        expect(statFailure.next).toBeNull();
        expect(c.find("a")).toBe(before);
    });

    it("keeps a linked-in model when its link cannot be followed for a moment: that scan fails, nothing changes", async () => {
        const target = await mkdtemp(path.join(os.tmpdir(), "chatserve-target-"));
        await writeFile(path.join(target, "real.gguf"), "GGUF");
        await symlink(path.join(target, "real.gguf"), path.join(dir, "a.gguf"));
        const c = catalogue();
        await c.refresh();
        const before = c.find("a");
        expect(before).toBeDefined();
        statFailure.next = Object.assign(new Error("EMFILE: too many open files"), {code: "EMFILE"});
        await expect(c.refresh()).rejects.toThrow("EMFILE");
        expect(c.find("a")).toBe(before);
        await c.refresh();
        expect(c.find("a")).toBe(before);
        await rm(target, {recursive: true, force: true});
    });

    it("re-reads a file whose size changed", async () => {
        await write("a.gguf");
        const c = catalogue();
        await c.refresh();
        await appendFile(path.join(dir, "a.gguf"), "more bytes");
        await c.refresh();
        expect(inspected).toEqual(["a.gguf", "a.gguf"]);
        expect(c.find("a")!.sizeBytes).toBe("GGUFmore bytes".length);
    });

    it("shares one scan between concurrent refreshes", async () => {
        await write("a.gguf");
        const c = catalogue();
        await Promise.all([c.refresh(), c.refresh(), c.refresh()]);
        expect(inspected).toEqual(["a.gguf"]);
    });

    it("answers a refresh with a scan that began after it: one under way may have read the folder before a new file came", async () => {
        await write("a.gguf");
        let release = () => {};
        const held = new Promise<void>((resolve) => release = resolve);
        let scans = 0;
        const c = new ModelCatalogue(dir, createLogger("silent"), async (file) => {
            if (path.basename(file) === "a.gguf" && scans++ === 0)
                await held; // the first scan has listed the folder and is reading a.gguf's header
            return inspect(file);
        });
        const first = c.refresh();
        await vi.waitFor(() => expect(scans).toBe(1));
        await write("b.gguf");
        const afterWrite = [c.refresh(), c.refresh()];
        release();
        await first;
        await Promise.all(afterWrite);
        expect(ids(c)).toEqual(["a", "b"]);
    });

    it("finds models in subfolders", async () => {
        await mkdir(path.join(dir, "vendor"));
        await writeFile(path.join(dir, "vendor", "nested.gguf"), "");
        const c = catalogue();
        await c.refresh();
        expect(ids(c)).toEqual(["nested"]);
    });
});
