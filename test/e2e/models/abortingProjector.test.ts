// A Qwen2-VL projector whose spatial_merge_size is 1 loads, then corrupts the heap and aborts the
// process at its first image (mtmd resizes by the merge size its graph ignores). Through a real
// server process, so that a check that let it through fails this test instead of killing the
// runner: the model serves text, the image gets a 400 saying why, and the server is still there.
import {spawn, type ChildProcess} from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {afterAll, beforeAll, expect, it} from "vitest";
import {encodeGguf, u32} from "../../fixtures/gguf/ggufWriter.js";
import {buildTinyQwen2VlModel} from "../../fixtures/gguf/visionModels.js";
import {qwen2vlProjectorFile} from "../../fixtures/gguf/visionProjectors.js";
import {encodePng, gradient} from "../../fixtures/images.js";

/** The CLI from source (tsx), as malformedProjector.test.ts runs it. */
const main = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));

let dir: string;
let child: ChildProcess;
let output = "";
let url: string;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-qwen-merge-"));
    const pair = await buildTinyQwen2VlModel(dir);
    const projector = qwen2vlProjectorFile({imageSize: 64, patchSize: 8, nEmbd: 32, nFf: 64, nHead: 2, nLayer: 2}, 64);
    await fs.writeFile(pair.mmproj, encodeGguf({...projector, metadata: {...projector.metadata, "clip.vision.spatial_merge_size": u32(1)}}));
    child = spawn(process.execPath, [
        "--import", "tsx", "--input-type=module", "-e", `import {main} from ${JSON.stringify(main)}; await main(["node", "chatserve", ...process.argv.slice(1)]);`, "--",
        "--models", dir, "--port", "0", "--threads", "1", "--ctx-size", "512", "--parallel", "1"
    ], {stdio: ["ignore", "pipe", "pipe"], env: {...process.env, UV_THREADPOOL_SIZE: "1"}});
    child.stdout!.on("data", (data: Buffer) => output += data.toString());
    child.stderr!.on("data", (data: Buffer) => output += data.toString());
    url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on("data", () => {
            const match = /listening on (http:\/\/\S+\/v1)/.exec(output);
            if (match != null && output.includes("tiny-qwen2vl"))
                resolve(match[1]!);
        });
        child.once("exit", () => reject(new Error(`exited early:\n${output}`)));
    });
}, 120_000);
afterAll(async () => {
    child?.kill("SIGKILL");
    await fs.rm(dir, {recursive: true, force: true});
});

const chat = (content: unknown) => fetch(`${url}/chat/completions`, {
    method: "POST", headers: {"content-type": "application/json"},
    body: JSON.stringify({model: "tiny-qwen2vl", max_tokens: 4, messages: [{role: "user", content}]})
});

it("refuses the image with the projector's reason, serves text, and keeps running", async (context) => {
    if (output.includes("image input: not available"))
        return context.skip("this llama.cpp build has no vision: no projector is ever loaded");
    const png = `data:image/png;base64,${encodePng(40, 24, gradient(40, 24)).toString("base64")}`;
    const image = await chat([{type: "text", text: "What is this?"}, {type: "image_url", image_url: {url: png}}]);
    expect(image.status).toBe(400);
    const {error} = await image.json() as {error: {code: string, message: string}};
    expect(error.code).toBe("image_input_not_supported");
    expect(error.message).toMatch(/its projector mmproj-tiny-qwen2vl\.gguf cannot be loaded: its qwen2vl_merger projector's spatial_merge_size is 1, not the 2 its merger is built for/);

    expect((await chat("Hello")).status).toBe(200);
    expect(child.exitCode).toBeNull();
}, 120_000);
