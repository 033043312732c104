import {spawnSync} from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {pino} from "pino";
import {describe, expect, it} from "vitest";
import {toGenerationOptions} from "../../../src/conversation/generationSettings.js";
import {parseSettingsFile} from "../../../src/models/modelSettings.js";
import {SettingsFile, settingsForModel} from "../../../src/models/settingsFile.js";

const silent = pino({level: "silent"});

describe("chatserve.json's schema", () => {
    it("accepts every field, and parses keep_alive as --keep-alive does", () => {
        const table = parseSettingsFile(JSON.stringify({models: {qwen: {
            ctx_size: 8192, parallel: 2, temperature: 0.7, top_p: 0.8, top_k: 20, min_p: 0.05, repeat_penalty: 1.1,
            chat_template: "t.jinja", aliases: ["small"], keep_alive: "5m", mmproj: "p.gguf"
        }}}));
        expect(table.settingsFor("qwen")).toEqual({
            ctxSize: 8192, parallel: 2, sampling: {temperature: 0.7, topP: 0.8, topK: 20, minP: 0.05, repeatPenalty: 1.1},
            chatTemplate: "t.jinja", keepAlive: {ms: 300_000}, mmproj: "p.gguf"
        });
        expect(table.aliases()).toEqual([{name: "small", model: "qwen"}]);
    });

    it.each([
        ["not JSON", "{models:", /not valid JSON/],
        ["no models", "{}", /models/],
        ["an unknown field, named with its path", `{"models": {"qwen": {"ctx": 4096}}}`, /models\.qwen.*ctx/],
        ["a mistyped number", `{"models": {"qwen": {"ctx_size": "big"}}}`, /models\.qwen\.ctx_size/],
        ["a temperature out of range", `{"models": {"qwen": {"temperature": 3}}}`, /models\.qwen\.temperature/],
        ["a keep-alive that is no duration", `{"models": {"qwen": {"keep_alive": "soon"}}}`, /models\.qwen\.keep_alive/],
        ["aliases on a pattern", `{"models": {"qwen*": {"aliases": ["x"]}}}`, /aliases belong on one model/]
    ])("refuses %s with what is wrong and where", (_, text, message) => {
        expect(() => parseSettingsFile(text)).toThrow(message);
    });
});

describe("which entry wins", () => {
    const table = parseSettingsFile(JSON.stringify({models: {
        "*": {ctx_size: 1024, keep_alive: "1m", temperature: 1.5},
        "qwen-*": {ctx_size: 2048, temperature: 0.5},
        "qwen-3-*": {ctx_size: 4096},
        "qwen-3-small": {parallel: 3}
    }}));

    it("takes each field from the most specific entry that has it: the id, then the longer pattern, then the shorter", () => {
        const own = table.settingsFor("qwen-3-small");
        expect(own.parallel).toBe(3);
        expect(own.ctxSize).toBe(4096);
        expect(own.sampling.temperature).toBe(0.5);
        expect(own.keepAlive).toEqual({ms: 60_000});
        expect(table.settingsFor("qwen-2-big").ctxSize).toBe(2048);
        expect(table.settingsFor("llama").ctxSize).toBe(1024);
    });

    it("prefers an exact id to any pattern, whatever the order written", () => {
        const reversed = parseSettingsFile(JSON.stringify({models: {"m": {ctx_size: 100}, "m*": {ctx_size: 200}, "*": {ctx_size: 300}}}));
        expect(reversed.settingsFor("m").ctxSize).toBe(100);
        expect(reversed.settingsFor("mx").ctxSize).toBe(200);
    });

    it("gives a model no entry covers no settings", () => {
        expect(parseSettingsFile(`{"models": {"a": {"ctx_size": 5}}}`).settingsFor("b")).toEqual({sampling: {}});
    });
});

describe("sampling defaults", () => {
    it("fill what the request leaves out, and never what it names", () => {
        const modelDefaults = {temperature: 0, topP: 0.5, topK: 7, minP: 0.1, repeatPenalty: 1.2};
        const defaulted = toGenerationOptions({stop: [], sampling: {}, promptPath: "messages"}, 5, 100, {modelDefaults}).sampling;
        expect(defaulted).toMatchObject({temperature: 0, topP: 0.5, topK: 7, minP: 0.1, repeatPenalty: 1.2});
        const named = toGenerationOptions({stop: [], sampling: {temperature: 0.9, topP: 0.95}, promptPath: "messages"}, 5, 100, {modelDefaults}).sampling;
        expect(named).toMatchObject({temperature: 0.9, topP: 0.95, topK: 7});
        expect(toGenerationOptions({stop: [], sampling: {}, promptPath: "messages"}, 5, 100).sampling).toMatchObject({temperature: 1, topP: 1});
    });
});

describe("SettingsFile", () => {
    async function folder(): Promise<string> {
        return await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-settings-"));
    }

    it("applies a valid file with its template's text, and keeps it when the next version is invalid", async () => {
        const dir = await folder();
        await fs.writeFile(path.join(dir, "t.jinja"), "{{ messages }}");
        await fs.writeFile(path.join(dir, "chatserve.json"), JSON.stringify({models: {m: {ctx_size: 512, chat_template: "t.jinja"}}}));
        const file = new SettingsFile(dir, silent);
        const applied: unknown[] = [];
        expect(await file.reload((settings) => applied.push(settings))).toBe(true);
        expect(settingsForModel(file.current, "m")).toMatchObject({ctxSize: 512, chatTemplateText: "{{ messages }}"});
        expect(await file.reload((settings) => applied.push(settings))).toBe(false);

        await fs.writeFile(path.join(dir, "chatserve.json"), `{"models": {"m": {"ctx_size": -1}}}`);
        expect(await file.reload((settings) => applied.push(settings))).toBe(false);
        expect(file.error).toMatch(/chatserve\.json is not valid, so the settings in force stay: models\.m\.ctx_size/);
        expect(settingsForModel(file.current, "m").ctxSize).toBe(512);
        expect(applied).toHaveLength(1);

        // A changed template is a change of the settings.
        await fs.writeFile(path.join(dir, "chatserve.json"), JSON.stringify({models: {m: {ctx_size: 512, chat_template: "t.jinja"}}}));
        await fs.writeFile(path.join(dir, "t.jinja"), "{{ other }}");
        expect(await file.reload((settings) => applied.push(settings))).toBe(true);
        expect(file.error).toBeNull();
        expect(settingsForModel(file.current, "m").chatTemplateText).toBe("{{ other }}");
    });

    it("refuses a template or projector that is not there, and settings the registry refuses", async () => {
        const dir = await folder();
        const file = new SettingsFile(dir, silent);
        await fs.writeFile(path.join(dir, "chatserve.json"), `{"models": {"m": {"chat_template": "missing.jinja"}}}`);
        await file.reload(() => {});
        expect(file.error).toMatch(/models\.m\.chat_template: missing\.jinja does not exist/);
        await fs.writeFile(path.join(dir, "chatserve.json"), `{"models": {"m": {"mmproj": "nope.gguf"}}}`);
        await file.reload(() => {});
        expect(file.error).toMatch(/models\.m\.mmproj: nope\.gguf does not exist/);
        await fs.writeFile(path.join(dir, "chatserve.json"), `{"models": {"m": {"aliases": ["x"]}}}`);
        expect(await file.reload(() => {
            throw new Error("'x' is given twice");
        })).toBe(false);
        expect(file.error).toMatch(/'x' is given twice/);
    });

    it("refuses a template or projector outside the models folder (.., absolute, a symlink out) unless allowed", async () => {
        const outside = await folder();
        const dir = path.join(outside, "models");
        await fs.mkdir(dir);
        await fs.writeFile(path.join(outside, "secret.jinja"), "{{ secret }}");
        await fs.writeFile(path.join(outside, "mmproj-x.gguf"), "GGUF");
        await fs.symlink(path.join(outside, "secret.jinja"), path.join(dir, "link.jinja"));
        const file = new SettingsFile(dir, silent);
        for (const [field, written] of [["chat_template", "../secret.jinja"], ["chat_template", path.join(outside, "secret.jinja")],
            ["chat_template", "link.jinja"], ["mmproj", "../mmproj-x.gguf"]]) {
            await fs.writeFile(path.join(dir, "chatserve.json"), JSON.stringify({models: {m: {[field!]: written}}}));
            expect(await file.reload(() => {}), written).toBe(false);
            expect(file.error).toContain(`models.m.${field}: ${written} lies outside the models folder`);
            expect(file.error).toContain("--allow-paths-outside-models");
        }
        const allowed = new SettingsFile(dir, silent, true);
        await fs.writeFile(path.join(dir, "chatserve.json"), JSON.stringify({models: {m: {chat_template: "../secret.jinja", mmproj: "../mmproj-x.gguf"}}}));
        expect(await allowed.reload(() => {})).toBe(true);
        expect(settingsForModel(allowed.current, "m")).toMatchObject({chatTemplateText: "{{ secret }}", mmproj: path.join(await fs.realpath(outside), "mmproj-x.gguf")});
        // A symlink that stays inside is fine.
        await fs.writeFile(path.join(dir, "t.jinja"), "{{ messages }}");
        await fs.symlink(path.join(dir, "t.jinja"), path.join(dir, "inside.jinja"));
        await fs.writeFile(path.join(dir, "chatserve.json"), JSON.stringify({models: {m: {chat_template: "inside.jinja"}}}));
        expect(await file.reload(() => {})).toBe(true);
    });

    it("reads a template only from a regular file of at most 1 MiB: not a folder, a FIFO or a huge file", async () => {
        const dir = await folder();
        await fs.mkdir(path.join(dir, "folder.jinja"));
        await fs.writeFile(path.join(dir, "huge.jinja"), "x".repeat(1024 * 1024 + 1));
        const fifo = spawnSync("mkfifo", [path.join(dir, "pipe.jinja")]).status === 0;
        const file = new SettingsFile(dir, silent);
        const cases: [string, string][] = [["folder.jinja", "is not a regular file"], ["huge.jinja", "holds 1048577 bytes, more than a chat template's 1048576"]];
        if (fifo)
            cases.push(["pipe.jinja", "is not a regular file"]);
        for (const [name, reason] of cases) {
            await fs.writeFile(path.join(dir, "chatserve.json"), JSON.stringify({models: {m: {chat_template: name}}}));
            expect(await file.reload(() => {}), name).toBe(false);
            expect(file.error).toContain(`models.m.chat_template: ${name} ${reason}`);
        }
    });

    it("means no settings when there is no file", async () => {
        const file = new SettingsFile(await folder(), silent);
        expect(await file.reload(() => {})).toBe(false);
        expect(file.error).toBeNull();
        expect(settingsForModel(file.current, "m")).toEqual({sampling: {}});
    });
});
