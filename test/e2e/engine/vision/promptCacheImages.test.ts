import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {ChatCompletionContentPart} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyLlavaModel, buildTinyQwen2VlModel} from "../../../fixtures/gguf/visionModels.js";
import {encodePng, gradient} from "../../../fixtures/images.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

/**
 * The prompt cache with an image in the prefix, on the tiny LLaVA (an image's cells follow its
 * positions) and Qwen2-VL (M-RoPE: more cells than positions): a conversation restored from RAM
 * after another took its one sequence, and from disk after a restart, replies byte for byte as a
 * fresh evaluation does at temperature 0, and counts the image's cells as cached.
 */
const system = "You describe pictures for a museum catalogue, in plain words, one short sentence each. ".repeat(20);
const other = "You summarise train timetables for travellers, in plain words, one line each. ".repeat(20);
const picture = (seed: number) => `data:image/png;base64,${encodePng(24, 24, gradient(24, 24, seed)).toString("base64")}`;
const parts = (seed: number): ChatCompletionContentPart[] => [{type: "image_url", image_url: {url: picture(seed)}}, {type: "text", text: "What is this?"}];

type Reply = {text: string, promptTokens: number, cachedTokens: number};

async function ask(server: TestServer, model: string, prompt: string, seed: number): Promise<Reply> {
    const reply = await server.client().chat.completions.create({
        model, temperature: 0, max_tokens: 12, messages: [{role: "system", content: prompt}, {role: "user", content: parts(seed)}]
    });
    return {text: reply.choices[0]!.message.content ?? "", promptTokens: reply.usage!.prompt_tokens, cachedTokens: reply.usage!.prompt_tokens_details?.cached_tokens ?? 0};
}

describe("the prompt cache with images", () => {
    let dir: string;
    let models: Record<string, string>;
    beforeAll(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-prompt-cache-images-"));
        const llava = await buildTinyLlavaModel(dir);
        const qwen = await buildTinyQwen2VlModel(dir);
        models = {"llava": llava.model, "mmproj-llava": llava.mmproj, "qwen": qwen.model, "mmproj-qwen": qwen.mmproj};
    }, 60_000);
    afterAll(async () => {
        await fs.rm(dir, {recursive: true, force: true});
    });

    for (const model of ["llava", "qwen"])
        it(`restores ${model}'s prefix with its image from RAM and from disk, replying as a fresh evaluation does`, async (context) => {
            const settings = {parallel: 1, ctxSize: 2048, maxQueue: 4};
            const fresh = await startTestServer(models, {...settings, promptCache: false});
            let expected: string;
            try {
                if (!fresh.vision.available)
                    return context.skip(`this llama.cpp build has no vision: ${fresh.vision.reason}`);
                expected = (await ask(fresh, model, system, 1)).text;
            } finally {
                await fresh.stop();
            }
            const cacheDir = path.join(dir, `cache-${model}`);
            const server = await startTestServer(models, {...settings, promptCacheDir: cacheDir});
            try {
                expect((await ask(server, model, system, 1)).text).toBe(expected);
                await ask(server, model, other, 2);
                const restored = await ask(server, model, system, 1);
                expect(restored.text).toBe(expected);
                expect(restored.cachedTokens).toBe(restored.promptTokens - 1);
                // Another image after the same text: the text is restored, the image is not.
                const otherImage = await ask(server, model, system, 3);
                expect(otherImage.cachedTokens).toBeLessThan(otherImage.promptTokens - 10);
            } finally {
                await server.stop();
            }
            const restarted = await startTestServer(models, {...settings, promptCacheDir: cacheDir});
            try {
                const fromDisk = await ask(restarted, model, system, 1);
                expect(fromDisk.text).toBe(expected);
                expect(fromDisk.cachedTokens).toBe(fromDisk.promptTokens - 1);
            } finally {
                await restarted.stop();
            }
        }, 120_000);
});
