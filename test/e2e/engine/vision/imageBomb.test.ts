// A PNG decompression bomb through a real server with a real projector: 2.1 MB on the wire, a 1×1
// header, 2 GiB once inflated. The server must refuse it before llama.cpp's decoder inflates it,
// which the process's peak memory (VmHWM, Linux) shows: the decoder would have added 2 GiB.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import {afterAll, beforeAll, expect, it} from "vitest";
import {buildTinyLlavaModel} from "../../../fixtures/gguf/visionModels.js";
import {encodePng, gradient, pngBomb} from "../../../fixtures/images.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString("base64")}`;
const peakRss = async () => Number(/VmHWM:\s+(\d+) kB/.exec(await fs.readFile("/proc/self/status", "utf8"))?.[1]) * 1024;

let dir: string;
let server: TestServer;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bomb-"));
    const pair = await buildTinyLlavaModel(dir);
    server = await startTestServer({llava: pair.model, "mmproj-llava": pair.mmproj}, {ctxSize: 512, maxImageBytes: 3_000_000, bodyLimit: "4mb"});
}, 60_000);
afterAll(async () => {
    await server?.stop();
    await fs.rm(dir, {recursive: true, force: true});
});

it("refuses a 2 GiB PNG bomb with a 400 saying why, without inflating it, and serves on", async (context) => {
    if (process.platform !== "linux")
        return context.skip("peak memory is read from /proc/self/status");
    if (!server.vision.available)
        return context.skip(`this llama.cpp build has no vision: ${server.vision.reason}`);
    const client = server.client();
    const ask = (url: string) => client.chat.completions.create({
        model: "llava", temperature: 0, max_tokens: 4,
        messages: [{role: "user", content: [{type: "text", text: "What is this?"}, {type: "image_url", image_url: {url}}]}]
    });
    await ask(dataUri(encodePng(16, 16, gradient(16, 16))));
    const bomb = dataUri(pngBomb(1, 1, 2048));
    expect(bomb.length).toBeLessThan(3_000_000);
    const before = await peakRss();

    const error = await ask(bomb).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({status: 400, code: "invalid_image", param: "messages[0].content[1].image_url.url"});
    expect((error as Error).message).toContain("inflates to more than the 4 bytes its 1x1 header declares");
    expect(await peakRss() - before).toBeLessThan(300 * 1024 * 1024);

    const after = await ask(dataUri(encodePng(16, 16, gradient(16, 16, 1))));
    expect(after.choices[0]!.message.role).toBe("assistant");
}, 120_000);
