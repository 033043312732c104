import {describe, expect, it} from "vitest";
import {lsTable} from "../../../src/cli/lsCommand.js";
import {humanDuration, psTable, serverUrl, type ServedModel} from "../../../src/cli/psCommand.js";
import {textTable} from "../../../src/cli/textTable.js";
import type {ModelDescriptor} from "../../../src/models/modelDescriptor.js";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const now = 1_800_000_000;
const loaded = (id: string, extra: Partial<ServedModel> = {}): ServedModel => ({
    id, status: "loaded", loaded: true, loading: false, unloading: false, context_length: 8192,
    memory_bytes: 2 * GiB, memory_gpu_bytes: 0, active_requests: 0, keep_alive: null, expires_at: null, ...extra
});
const rows = (table: string) => table.trimEnd().split("\n").map((line) => line.split(/ {3,}/));

describe("chatserve ps's table", () => {
    it("shows loaded and loading models with memory, processor, context and until when, as ollama ps does", () => {
        const table = psTable([
            loaded("qwen", {expires_at: now + 240, prompt_cache: {ram_bytes: 40 * MiB, disk_bytes: 1.5 * GiB}}),
            loaded("llama", {keep_alive: -1, memory_gpu_bytes: 2 * GiB, prompt_cache: {ram_bytes: 0, disk_bytes: 0}}),
            loaded("gemma", {memory_gpu_bytes: 0.5 * GiB, prompt_cache: {ram_bytes: 3 * MiB, disk_bytes: 0}}),
            {id: "phi", status: "loading", loaded: false, loading: true, memory_bytes: GiB, context_length: 4096},
            {id: "idle-on-disk", status: "available", loaded: false, loading: false},
            loaded("gpt-4o", {alias_for: "qwen"})
        ], "CPU", now);
        expect(rows(table)).toEqual([
            ["NAME", "MEMORY", "PROCESSOR", "CONTEXT", "CACHED", "UNTIL"],
            ["qwen", "2 GiB", "100% CPU", "8192", "40 MiB RAM + 1.5 GiB disk", "4 minutes from now"],
            ["llama", "2 GiB", "100% GPU", "8192", "none", "forever"],
            ["gemma", "2 GiB", "75%/25% CPU/GPU", "8192", "3 MiB RAM", "until memory is needed"],
            ["phi", "1 GiB", "100% CPU", "4096", "-", "loading"]
        ]);
    });

    it("says what a busy or unloading model waits for", () => {
        const table = psTable([
            loaded("busy", {active_requests: 2, keep_alive: 300}),
            loaded("once", {active_requests: 1, keep_alive: 0}),
            loaded("going", {unloading: true}),
            loaded("late", {expires_at: now - 1}),
            {id: "queued", status: "loading", loaded: false, loading: true, waiting_for_memory: true}
        ], "CPU", now);
        expect(rows(table).slice(1).map((row) => row[5])).toEqual(["5 minutes after its requests end", "its requests end", "unloading", "now", "waiting for memory"]);
    });

    it("falls back on what an older server says: the backend for the processor, weights plus context for memory, no cache size", () => {
        const table = psTable([{id: "old", status: "loaded", loaded: true, size_bytes: GiB, context_memory_bytes: GiB, context_length: 2048}], "CPU", now);
        expect(rows(table)[1]).toEqual(["old", "2 GiB", "100% CPU", "2048", "-", "until memory is needed"]);
        expect(rows(psTable([loaded("m", {memory_gpu_bytes: undefined})], "CUDA", now))[1]![2]).toBe("GPU (CUDA)");
        expect(rows(psTable([loaded("m", {memory_gpu_bytes: undefined})], null, now))[1]![2]).toBe("-");
    });

    it("says so when nothing is loaded", () => {
        expect(psTable([{id: "m", status: "available", loaded: false}], "CPU", now)).toBe(
            "NAME   MEMORY   PROCESSOR   CONTEXT   CACHED   UNTIL\n(no model is loaded: a model loads on its first request)\n");
    });

    it("reads spans as a person says them", () => {
        expect([1, 59, 60, 3599, 7200, 90_000].map(humanDuration)).toEqual(["1 second", "59 seconds", "1 minute", "59 minutes", "2 hours", "1 day"]);
    });

    it("finds the server at --url, else where chatserve listens by CHATSERVE_HOST and CHATSERVE_PORT", () => {
        expect(serverUrl(undefined, {})).toBe("http://127.0.0.1:8080");
        expect(serverUrl(undefined, {CHATSERVE_HOST: "0.0.0.0", CHATSERVE_PORT: "9000"})).toBe("http://127.0.0.1:9000");
        expect(serverUrl(undefined, {CHATSERVE_HOST: "::"})).toBe("http://[::1]:8080");
        expect(serverUrl("http://box:8080/v1/", {})).toBe("http://box:8080");
        expect(serverUrl("localhost:1234", {})).toBe("http://localhost:1234");
        expect(() => serverUrl("http://", {})).toThrow(/is not a URL/);
    });
});

describe("chatserve ls's table", () => {
    const descriptor = (id: string, extra: Partial<ModelDescriptor> = {}): ModelDescriptor => ({
        id, path: `/m/${id}.gguf`, files: [`/m/${id}.gguf`], sizeBytes: GiB, modifiedAt: 0, architecture: "qwen2",
        trainedContextLength: 32768, capabilities: ["chat", "completion", "tools"], quantization: "Q4_K_M", ...extra
    });

    it("lists every model sorted by name, and why one cannot be served", () => {
        const table = lsTable([
            descriptor("qwen"),
            descriptor("broken", {architecture: null, trainedContextLength: null, capabilities: [], quantization: undefined, error: "not a readable GGUF file (bad magic)"}),
            descriptor("bge", {architecture: "bert", trainedContextLength: 512, capabilities: ["embeddings"], quantization: "F16", sizeBytes: 64 * 1024 * 1024})
        ], "/m");
        expect(rows(table)).toEqual([
            ["NAME", "SIZE", "ARCHITECTURE", "QUANTIZATION", "CONTEXT", "CAPABILITIES"],
            ["bge", "64 MiB", "bert", "F16", "512", "embeddings"],
            ["broken", "1 GiB", "-", "-", "-", "unavailable: not a readable GGUF file (bad magic)"],
            ["qwen", "1 GiB", "qwen2", "Q4_K_M", "32768", "chat, completion, tools"]
        ]);
    });

    it("lists vision, with its projector, for a chat model paired with one", () => {
        const table = lsTable([descriptor("gemma", {projector: "/m/gemma/mmproj-F16.gguf"})], "/m");
        expect(rows(table)[1]!.at(-1)).toBe("chat, completion, tools, vision (mmproj-F16.gguf)");
    });

    it("says how to get a model when the folder has none", () => {
        expect(lsTable([], "/m")).toMatch(/^NAME +SIZE .*\n\(no models in \/m: chatserve pull hf:user\/repo:Q4_K_M downloads one, or copy a \.gguf file there\)\n$/);
    });
});

describe("the text table", () => {
    it("aligns columns, leaves the last unpadded, and keeps every row on one line", () => {
        expect(textTable(["A", "BB"], [["long cell", "x"], ["y", "two\nlines"]])).toBe("A           BB\nlong cell   x\ny           two lines\n");
    });
});
