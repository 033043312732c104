// Image decodes through a real server with a real projector: they wait in the server's pool of
// decodes (engine/vision/imageDecodePool.ts) under --max-queue, a request whose client leaves while
// its image waits never has it decoded, the others complete, and the server answers on. The test
// holds every slot of the pool itself while the requests arrive, so that they wait whatever the
// machine's speed (a tiny image decodes in a millisecond).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import {afterAll, beforeAll, expect, it} from "vitest";
import {buildTinyLlavaModel} from "../../../fixtures/gguf/visionModels.js";
import {encodePng, gradient} from "../../../fixtures/images.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const image = (seed: number) => `data:image/png;base64,${encodePng(16, 16, gradient(16, 16, seed)).toString("base64")}`;

let dir: string;
let server: TestServer;

beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-decodes-"));
    const pair = await buildTinyLlavaModel(dir);
    server = await startTestServer({llava: pair.model, "mmproj-llava": pair.mmproj}, {ctxSize: 512, maxQueue: 2});
}, 60_000);
afterAll(async () => {
    await server?.stop();
    await fs.rm(dir, {recursive: true, force: true});
});

/** Resolves once `holds` is true, checking at each turn of the event loop (the requests run in this process). */
async function until(holds: () => boolean): Promise<void> {
    while (!holds())
        await new Promise((resolve) => setTimeout(resolve, 5));
}

it("queues decodes under --max-queue, never decodes an abandoned request's image, and completes the others", async (context) => {
    if (!server.vision.available)
        return context.skip(`this llama.cpp build has no vision: ${server.vision.reason}`);
    const client = server.client();
    const ask = (seed: number, signal?: AbortSignal) => client.chat.completions.create({
        model: "llava", temperature: 0, max_tokens: 4,
        messages: [{role: "user", content: [{type: "text", text: "What is this?"}, {type: "image_url", image_url: {url: image(seed)}}]}]
    }, signal == null ? {} : {signal});
    // The model loads, and one image decodes.
    await ask(0);
    const pool = server.imageDecodes;
    const startedBefore = pool.started;

    // Every slot held: whatever arrives now waits.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => open = resolve);
    const held = Array.from({length: pool.concurrency}, () => pool.run(() => gate, new AbortController().signal));

    const leaving = new AbortController();
    const first = ask(1);
    const abandoned = ask(2, leaving.signal).then(() => null, (error: unknown) => error);
    await until(() => pool.queued === 2);

    // The queue holds --max-queue (2): one more is the sequence queue's 503.
    const refused = await ask(3).then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(refused).toMatchObject({status: 503, code: "server_busy"});

    // The client that leaves takes its image out of the queue, which makes room for another.
    leaving.abort();
    expect(await abandoned).toBeInstanceOf(OpenAI.APIUserAbortError);
    await until(() => pool.queued === 1);
    const second = ask(4);
    await until(() => pool.queued === 2);

    open();
    await Promise.all(held);
    const answers = await Promise.all([first, second]);
    expect(answers.map((answer) => answer.choices[0]!.message.role)).toEqual(["assistant", "assistant"]);
    // The two that stayed, and the test's own holds: the abandoned image was never decoded.
    expect(pool.started - startedBefore).toBe(pool.concurrency + 2);
    expect([pool.running, pool.queued]).toEqual([0, 0]);

    // And the server answers on, images included.
    const after = await ask(5);
    expect(after.choices[0]!.message.role).toBe("assistant");
}, 120_000);
