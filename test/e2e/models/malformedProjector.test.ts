// A 124-byte projector (mmproj) whose header claims 2^40 metadata entries once left its model
// "loading" for ever, the server growing by 1.7 GB in 45 s, and SIGTERM could not stop it. Through
// a real server process: the model serves text, an image request gets a 400 saying why, the banner
// and /v1/models say it too, memory stays bounded, and SIGTERM ends the process.
import {spawn, type ChildProcess} from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {afterAll, beforeAll, expect, it} from "vitest";
import type {ModelObject} from "../../../src/api/models/models.js";
import {malformedProjectorBytes} from "../../fixtures/gguf/brokenModels.js";
import {encodePng, gradient} from "../../fixtures/images.js";
import {buildTinyLlavaModel} from "../../fixtures/gguf/visionModels.js";

/** The CLI from source (tsx), as bin/chatserve.cjs runs the built one: this tests the tree as it is, built or not. */
const main = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const peakBytes = async (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(await fs.readFile(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;

let dir: string;
let child: ChildProcess;
let output = "";
let url: string;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-mmproj-"));
    const pair = await buildTinyLlavaModel(dir);
    await fs.writeFile(pair.mmproj, malformedProjectorBytes());
    child = spawn(process.execPath, [
        "--import", "tsx", "--input-type=module", "-e", `import {main} from ${JSON.stringify(main)}; await main(["node", "chatserve", ...process.argv.slice(1)]);`, "--",
        "--models", dir, "--port", "0", "--threads", "1", "--ctx-size", "512", "--parallel", "1"
    ], {stdio: ["ignore", "pipe", "pipe"], env: {...process.env, UV_THREADPOOL_SIZE: "1"}});
    child.stdout!.on("data", (data: Buffer) => output += data.toString());
    child.stderr!.on("data", (data: Buffer) => output += data.toString());
    url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on("data", () => {
            const match = /listening on (http:\/\/\S+\/v1)/.exec(output);
            if (match != null && /models in .*:\n(.*\n)+/.test(output) && output.includes("tiny-llava"))
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
    body: JSON.stringify({model: "tiny-llava", max_tokens: 4, messages: [{role: "user", content}]})
});

it("serves text, refuses images with the projector's reason everywhere, stays small, and ends on SIGTERM", async (context) => {
    if (process.platform !== "linux")
        return context.skip("peak memory is read from /proc");
    if (output.includes("image input: not available"))
        return context.skip("this llama.cpp build has no vision: no projector is ever loaded");
    const reason = /its projector mmproj-tiny-llava\.gguf cannot be loaded: the GGUF header claims 1099511627776 metadata entries/;
    expect(output).toMatch(/- tiny-llava \(llama, chat, completion\): .*; text only: its projector mmproj-tiny-llava\.gguf cannot be loaded/);

    const listed = ((await (await fetch(`${url}/models`)).json()) as {data: ModelObject[]}).data.find((model) => model.id === "tiny-llava")!;
    expect(listed.vision_error).toMatch(reason);
    expect(listed.capabilities).not.toContain("vision");

    const text = await chat("Hello");
    expect(text.status).toBe(200);

    const png = `data:image/png;base64,${encodePng(16, 16, gradient(16, 16)).toString("base64")}`;
    const image = await chat([{type: "text", text: "What is this?"}, {type: "image_url", image_url: {url: png}}]);
    expect(image.status).toBe(400);
    const {error} = await image.json() as {error: {code: string, message: string, param: string}};
    expect(error.code).toBe("image_input_not_supported");
    expect(error.message).toMatch(reason);
    // Once loaded, the listing still says why.
    expect(((await (await fetch(`${url}/models`)).json()) as {data: ModelObject[]}).data[0]!.vision_error).toMatch(reason);

    // The old reader grew the process by 1.7 GB; a tiny model and its server take a few hundred MB.
    expect(await peakBytes(child.pid!)).toBeLessThan(1024 * 1024 * 1024);

    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    // Generous: a shutdown that waits on a hung load never ends at all.
    const code = await Promise.race([exited, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 20_000))]);
    expect(code).toBe(0);
}, 120_000);
