import os from "node:os";
import path from "node:path";
import {afterEach, describe, expect, it, vi} from "vitest";
import {printBanner} from "../../../src/cli/banner.js";
import {formatBytes} from "../../../src/models/byteSize.js";
import {resolveConfig, type ConfigInput} from "../../../src/config.js";
import type {ListedModel} from "../../../src/models/listedModel.js";
import type {RunningServer} from "../../../src/server.js";

/** What the banner says for these settings and the models the registry lists. */
function bannerFor(settings: ConfigInput, models: Array<Partial<ListedModel>> = [], vision: RunningServer["vision"] = {available: true}): string {
    let printed = "";
    vi.spyOn(process.stdout, "write").mockImplementation((text) => (printed += String(text), true));
    const server = {
        url: "http://127.0.0.1:8080/v1", backend: "CPU", openmp: true, threads: 2, decodeThreads: 2, vision, freeMemoryBytes: 20 * 1024 ** 3,
        memoryBudget: {bytes: 18 * 1024 ** 3, models: Number.POSITIVE_INFINITY, source: "the memory free at start, less a tenth"},
        registry: {list: () => models}
    };
    printBanner(resolveConfig(settings), server as unknown as RunningServer);
    return printed;
}

const qwen: Partial<ListedModel> = {
    id: "qwen2.5-7b", architecture: "qwen2", status: "available", capabilities: ["chat", "completion", "tools"],
    contextLength: 32768, parallel: 2, kvCacheBytes: 3.5 * 1024 ** 3
};

describe("printBanner", () => {
    afterEach(() => vi.restoreAllMocks());

    it("says how to add a model to an empty folder", () => {
        expect(bannerFor({modelsDir: os.tmpdir()})).toContain("(none yet) Copy a .gguf file into that folder");
    });

    it("says when the models folder does not exist, which a mistyped --models looks like", () => {
        expect(bannerFor({modelsDir: path.join(os.tmpdir(), "chatserve-no-such-folder")})).toContain("that folder does not exist");
    });

    it("says what each request gets of a model and what its KV cache costs", () => {
        const banner = bannerFor({}, [qwen, {id: "bge", architecture: "bert", status: "available", capabilities: ["embeddings"], contextLength: 512, parallel: 1, kvCacheBytes: null}]);
        expect(banner).toContain("  - qwen2.5-7b (qwen2, chat, completion, tools): 32768 tokens per request, 2 at once, KV cache 3.5 GiB\n");
        expect(banner).toContain("  - bge (bert, embeddings): 512 tokens per request\n");
    });

    it("names a KV cache's types when they are not f16", () => {
        expect(bannerFor({}, [{...qwen, kvCacheTypes: {k: "f16", v: "f16"}}])).toContain("KV cache 3.5 GiB\n");
        expect(bannerFor({}, [{...qwen, kvCacheBytes: 1.9 * 1024 ** 3, kvCacheTypes: {k: "q8_0", v: "q8_0"}}])).toContain("2 at once, KV cache 1.9 GiB (q8_0)\n");
        expect(bannerFor({}, [{...qwen, kvCacheTypes: {k: "q8_0", v: "f16"}}])).toContain("KV cache 3.5 GiB (K q8_0, V f16)\n");
    });

    it("says which memory the defaults were sized to, and only while a default is in use", () => {
        expect(bannerFor({}, [qwen])).toContain(
            "memory: 20 GiB free at start; a model's KV cache takes at most half of what its weights leave (by its default context and parallel sequences)");
        expect(bannerFor({ctxSize: 4096}, [qwen])).toContain("(by its default parallel sequences)");
        expect(bannerFor({ctxSize: 4096, parallel: 4}, [qwen])).not.toContain("memory:");
    });

    it("says which models take images, or why this build takes none", () => {
        const gemma: Partial<ListedModel> = {...qwen, id: "gemma-3-4b", capabilities: ["chat", "completion", "vision"]};
        expect(bannerFor({}, [qwen, gemma])).toContain("image input: gemma-3-4b (each with its projector, mmproj)\n");
        expect(bannerFor({}, [qwen])).not.toContain("image input");
        expect(bannerFor({}, [qwen], {available: false, reason: "no image support in this build"}))
            .toContain("image input: not available (no image support in this build)\n");
    });

    it("says why a model whose projector failed its checks serves text only", () => {
        const llava: Partial<ListedModel> = {...qwen, id: "llava", visionError: "its projector mmproj-llava.gguf cannot be loaded: the GGUF header ends past the end of the file (124 bytes)"};
        expect(bannerFor({}, [llava])).toContain(
            "  - llava (qwen2, chat, completion, tools): 32768 tokens per request, 2 at once, KV cache 3.5 GiB; text only: its projector mmproj-llava.gguf cannot be loaded: the GGUF header ends past the end of the file (124 bytes)\n");
    });

    it("says what the loaded models may take together, and how long an idle one stays", () => {
        expect(bannerFor({}, [qwen])).toContain(
            "loaded models: up to 18 GiB together (the memory free at start, less a tenth); an idle one stays until its memory is needed for another\n");
        expect(bannerFor({keepAlive: {ms: 300_000}}, [qwen])).toContain("an idle one stays 300 s (--keep-alive), or until its memory is needed\n");
        expect(bannerFor({keepAlive: "forever"}, [qwen])).toContain("an idle one stays for ever (--keep-alive -1: never unloaded to make room)\n");
        expect(bannerFor({}, [{...qwen, memory: {ram: 8 * 1024 ** 3, vram: 0}}])).toContain("KV cache 3.5 GiB, 8 GiB in all\n");
    });

    it("warns in plain words when it listens beyond this machine with no API key", () => {
        expect(bannerFor({host: "0.0.0.0"})).toContain("warning: listening on 0.0.0.0 with no API key: anyone who can reach this port can run the models");
        expect(bannerFor({host: "0.0.0.0", apiKeys: ["secret"]})).not.toContain("warning:");
        for (const host of ["127.0.0.1", "::1", "localhost"])
            expect(bannerFor({host})).not.toContain("warning:");
    });

    it("lists the aliases, marking one whose model the folder does not hold, and not as models", () => {
        const banner = bannerFor({modelAliases: [{name: "claude-*", model: "qwen2.5-7b"}, {name: "gpt-4o", model: "llama"}]},
            [qwen, {id: "gpt-4o", aliasFor: "llama", status: "unavailable", error: "alias"}]);
        expect(banner).toContain("aliases: claude-* → qwen2.5-7b, gpt-4o → llama (not in the folder)\n");
        expect(banner).not.toContain("  - gpt-4o");
    });
});

describe("formatBytes", () => {
    it.each([[0, "0 bytes"], [1023, "1023 bytes"], [8 * 1024 ** 2, "8 MiB"], [1.5 * 1024 ** 3, "1.5 GiB"], [720 * 1024 ** 2, "720 MiB"], [23.04 * 1024, "23 KiB"]])(
        "%d bytes is %s", (bytes, text) => expect(formatBytes(bytes)).toBe(text));
});
