// `chatserve pull` checks a vision projector before it lands, as it checks the model: a malformed
// projector (the 124-byte one that wedged a server loading it) fails the pull, and nothing lands.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, expect, it} from "vitest";
import {pullModel} from "../../../src/pull/pullModel.js";
import {parsePullSource} from "../../../src/pull/pullSource.js";
import {malformedProjectorBytes} from "../../fixtures/gguf/brokenModels.js";
import {downloadableModel} from "../../fixtures/gguf/downloadableModels.js";
import {HubMirror} from "../support/hubMirror.js";

let mirror: HubMirror;
let modelsDir: string;

beforeAll(async () => {
    mirror = await HubMirror.start([{id: "tester/Broken-GGUF", files: {
        "broken-Q8_0.gguf": downloadableModel({bytes: 50_000, fileType: 7, seed: 21}),
        "mmproj-broken-F16.gguf": malformedProjectorBytes()
    }}]);
    modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-pull-projector-"));
});
afterAll(async () => {
    await mirror?.close();
    await fs.rm(modelsDir, {recursive: true, force: true});
});

it("refuses a projector that fails the checks a model's header gets, and lands neither file", async () => {
    const pulling = pullModel({source: parsePullSource("hf:tester/Broken-GGUF:Q8_0", mirror.url), modelsDir, hubEndpoint: mirror.url, say: () => {}});
    await expect(pulling).rejects.toThrow(/the downloaded mmproj-broken-F16\.gguf is not a usable vision projector \(the GGUF header claims 1099511627776 metadata entries .*\); it was deleted/);
    const landed = (await fs.readdir(path.join(modelsDir, "Broken-GGUF"))).filter((name) => name.endsWith(".gguf"));
    expect(landed).toEqual([]);
}, 60_000);
