import os from "node:os";
import path from "node:path";
import {afterEach, describe, expect, it, vi} from "vitest";
import {printBanner} from "../../src/cli/banner.js";
import {resolveConfig} from "../../src/config.js";
import type {RunningServer} from "../../src/server.js";

/** What the banner says for a models folder with no models in it. */
function bannerFor(modelsDir: string): string {
    let printed = "";
    vi.spyOn(process.stdout, "write").mockImplementation((text) => (printed += String(text), true));
    const server = {url: "http://127.0.0.1:8080/v1", backend: "CPU", openmp: true, threads: 2, decodeThreads: 2, registry: {list: () => []}};
    printBanner(resolveConfig({modelsDir}), server as unknown as RunningServer);
    return printed;
}

describe("printBanner", () => {
    afterEach(() => vi.restoreAllMocks());

    it("says how to add a model to an empty folder", () => {
        expect(bannerFor(os.tmpdir())).toContain("(none yet) Copy a .gguf file into that folder");
    });

    it("says when the models folder does not exist, which a mistyped --models looks like", () => {
        expect(bannerFor(path.join(os.tmpdir(), "chatserve-no-such-folder"))).toContain("that folder does not exist");
    });
});
