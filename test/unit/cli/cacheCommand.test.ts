import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {Command} from "commander";
import {afterEach, beforeEach, describe, expect, it, vi} from "vitest";
import {cacheCommand} from "../../../src/cli/cacheCommand.js";
import {defaultPromptCacheDir} from "../../../src/engine/promptCache/promptCacheSettings.js";

describe("chatserve cache", () => {
    let dir: string;
    beforeEach(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-cache-cli-"));
        await fs.mkdir(path.join(dir, "layout-1"));
        await fs.writeFile(path.join(dir, "layout-1", "abc-600.kvcache"), Buffer.alloc(3000));
        await fs.writeFile(path.join(dir, "layout-1", "layout.json"), "{}");
        await fs.writeFile(path.join(dir, "layout-1", ".tmp-12-ab"), Buffer.alloc(10));
        // Not the cache's: a folder pointed at by mistake keeps it.
        await fs.writeFile(path.join(dir, "layout-1", "notes.txt"), "mine");
        await fs.mkdir(path.join(dir, "layout-2"));
        await fs.writeFile(path.join(dir, "layout-2", "def-900.kvcache"), Buffer.alloc(2000));
    });
    afterEach(async () => {
        vi.restoreAllMocks();
        await fs.rm(dir, {recursive: true, force: true});
    });

    async function run(...args: string[]): Promise<string> {
        const written: string[] = [];
        vi.spyOn(process.stdout, "write").mockImplementation((chunk) => written.push(String(chunk)) > 0);
        const program = new Command("chatserve").exitOverride();
        cacheCommand(program);
        await program.parseAsync(["cache", ...args], {from: "user"});
        vi.restoreAllMocks();
        return written.join("");
    }

    it("says what the disk tier holds", async () => {
        expect(await run("--prompt-cache-dir", dir)).toBe(`${dir}: 2 cached prompt prefixes, 4.9 KiB\n`);
    });

    it("clears only the files the disk tier writes", async () => {
        expect(await run("clear", "--prompt-cache-dir", dir)).toMatch(/removed 4 files/);
        expect(await fs.readdir(path.join(dir, "layout-1"))).toEqual(["notes.txt"]);
        await expect(fs.access(path.join(dir, "layout-2"))).rejects.toThrow();
        expect(await run("--prompt-cache-dir", dir)).toBe(`${dir}: 0 cached prompt prefixes, 0 bytes\n`);
    });
});

describe("the prompt cache's default folder", () => {
    it("is in the user's cache folder", () => {
        expect(defaultPromptCacheDir({XDG_CACHE_HOME: "/x/cache"}, "linux")).toBe("/x/cache/chatserve/prompt-cache");
        expect(defaultPromptCacheDir({XDG_CACHE_HOME: "relative"}, "linux")).toBe(path.join(os.homedir(), ".cache", "chatserve", "prompt-cache"));
        expect(defaultPromptCacheDir({}, "darwin")).toBe(path.join(os.homedir(), "Library", "Caches", "chatserve", "prompt-cache"));
    });
});
