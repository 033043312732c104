import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterEach, describe, expect, it, vi} from "vitest";
import {listHubFiles} from "../../../src/pull/hubListing.js";
import {localFileName, unsafeFileNameReason} from "../../../src/pull/localFileName.js";
import {parsePullSource} from "../../../src/pull/pullSource.js";
import {stagedDownload} from "../../../src/pull/stagedDownload.js";

describe("unsafeFileNameReason", () => {
    it.each([
        ["..\\..\\evil.gguf", "path separator"], ["sub/evil.gguf", "path separator"], ["C:evil.gguf", "Windows does not allow"],
        ["..gguf", "starts with a dot"], [".hidden.gguf", "starts with a dot"], ["evil\u0000.gguf", "control character"], ["line\nbreak.gguf", "control character"],
        ["NUL.gguf", "another name"], ["com1.gguf", "another name"], ["model.gguf.", "not a .gguf"], ["model.bin", "not a .gguf"],
        [`${"a".repeat(300)}.gguf`, "255 bytes"], ["what?.gguf", "Windows does not allow"]
    ])("refuses %j (%s)", (name, reason) => {
        expect(unsafeFileNameReason(name)).toContain(reason);
    });

    it.each(["model-Q4_K_M.gguf", "Qwen2.5-7B-Instruct-Q4_K_M-00001-of-00002.gguf", "mmproj-model-f16.gguf", "модель.gguf"])("passes %s", (name) => {
        expect(unsafeFileNameReason(name)).toBeNull();
    });

    it("localFileName says which name and why", () => {
        expect(() => localFileName("..\\x.gguf", "hf:u/r's file")).toThrow("hf:u/r's file '..\\x.gguf' cannot be written into the models folder: it holds a path separator");
    });
});

describe("names from a URL and from a hub listing get the same check", () => {
    afterEach(() => vi.unstubAllGlobals());

    it("a URL whose last segment decodes to a backslash path is refused", () => {
        expect(() => parsePullSource("https://example.com/files/..%5C..%5Cevil.gguf", "https://huggingface.co/")).toThrow(/path separator/);
        expect(() => parsePullSource("https://example.com/files/NUL.gguf", "https://huggingface.co/")).toThrow(/another name/);
    });

    it("a hub listing's .gguf whose name could not be a file here is no candidate", async () => {
        const siblings = [{rfilename: "good-Q4_K_M.gguf"}, {rfilename: "..\\..\\evil-Q4_K_M.gguf"}, {rfilename: "dir/sub\\evil.gguf"}, {rfilename: "README.md"}];
        vi.stubGlobal("fetch", async () => new Response(JSON.stringify({siblings}), {status: 200, headers: {"content-type": "application/json"}}));
        const files = await listHubFiles("https://hub.example/", {user: "u", name: "r", revision: "main"});
        expect(files.map((file) => file.path)).toEqual(["good-Q4_K_M.gguf", "README.md"]);
    });
});

describe("the download itself checks every name it is given", () => {
    it.each(["..\\..\\evil.gguf", "../evil.gguf", "C:\\evil.gguf", "evil\u0000.gguf"])("refuses %j before creating anything or asking the network", async (fileName) => {
        const folder = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-names-"));
        try {
            await expect(stagedDownload({folder, hubEndpoint: "https://hub.example/", items: [{url: "https://hub.example/x.gguf", fileName, model: true}]}))
                .rejects.toThrow("cannot be written into the models folder");
            expect(await fs.readdir(folder)).toEqual([]);
        } finally {
            await fs.rm(folder, {recursive: true, force: true});
        }
    });
});
