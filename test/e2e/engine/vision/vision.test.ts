// Image input end to end: a real server, tiny random-weight vision models (a text model and its
// projector, paired by name in the models folder) through llama.cpp's mtmd, the official `openai`
// client. Skips where this install's llama.cpp build has no vision (prebuilt binaries).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type {ChatCompletionContentPart, ChatCompletionCreateParamsNonStreaming} from "openai/resources/chat/completions";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {
    buildTinyGemma3VisionModel, buildTinyLlavaModel, buildTinyQwen2VlModel, TINY_LLAVA_IMAGE_TOKENS, type VisionPair
} from "../../../fixtures/gguf/visionModels.js";
import {encodeJpeg, encodePng, gradient, pngHeader} from "../../../fixtures/images.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const dataUri = (bytes: Buffer, mime = "image/png") => `data:${mime};base64,${bytes.toString("base64")}`;
const png = (width: number, height: number, seed = 0) => dataUri(encodePng(width, height, gradient(width, height, seed)));
const image = (url: string): ChatCompletionContentPart => ({type: "image_url", image_url: {url, detail: "auto"}});
const text = (value: string): ChatCompletionContentPart => ({type: "text", text: value});

describe("image input", () => {
    let dir: string;
    let server: TestServer;
    let client: OpenAI;
    let pairs: Record<"llava" | "gemma" | "qwen", VisionPair>;

    beforeAll(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-vision-"));
        pairs = {llava: await buildTinyLlavaModel(dir), gemma: await buildTinyGemma3VisionModel(dir), qwen: await buildTinyQwen2VlModel(dir)};
        const models: Record<string, string> = {text: await buildTinyChatModel(dir)};
        for (const [id, pair] of Object.entries(pairs))
            Object.assign(models, {[id]: pair.model, [`mmproj-${id}`]: pair.mmproj});
        server = await startTestServer(models, {ctxSize: 512, maxImageBytes: 200_000, maxImagePixels: 4096 * 4096});
        client = server.client();
    }, 60_000);
    afterAll(async () => {
        await server?.stop();
        await fs.rm(dir, {recursive: true, force: true});
    });

    const visionIt = (name: string, test: () => Promise<void>, timeout = 60_000) =>
        it(name, async (context) => {
            if (!server.vision.available)
                return context.skip(`this llama.cpp build has no vision: ${server.vision.reason}`);
            await test();
        }, timeout);

    const ask = (model: string, parts: ChatCompletionContentPart[], extra: Partial<ChatCompletionCreateParamsNonStreaming> = {}) =>
        client.chat.completions.create({model, temperature: 0, max_tokens: 8, messages: [{role: "user", content: parts}], ...extra});

    visionIt("lists vision for a model with a projector, and not for one without", async () => {
        const {data} = await client.models.list();
        const capabilities = (id: string) => (data.find((model) => model.id === id) as unknown as {capabilities: string[]}).capabilities;
        expect(capabilities("llava")).toContain("vision");
        expect(capabilities("text")).not.toContain("vision");
        expect(data.map((model) => model.id)).not.toContain("mmproj-llava");
    });

    visionIt("answers an image, streamed and not alike, counting its tokens in usage", async () => {
        const parts = [text("What is in this picture?"), image(png(40, 30))];
        const reply = await ask("llava", parts);
        const withoutImage = await ask("llava", [text("What is in this picture?")]);
        expect(reply.object).toBe("chat.completion");
        expect(reply.choices[0]!.message.role).toBe("assistant");
        // The image's 16 tokens, and the line between the text and the image.
        expect(reply.usage!.prompt_tokens - withoutImage.usage!.prompt_tokens).toBeGreaterThanOrEqual(TINY_LLAVA_IMAGE_TOKENS);
        expect(reply.usage!.prompt_tokens - withoutImage.usage!.prompt_tokens).toBeLessThanOrEqual(TINY_LLAVA_IMAGE_TOKENS + 2);

        const stream = await client.chat.completions.create({
            model: "llava", temperature: 0, max_tokens: 8, stream: true, stream_options: {include_usage: true}, messages: [{role: "user", content: parts}]
        });
        let streamed = "";
        let usage;
        for await (const chunk of stream) {
            streamed += chunk.choices[0]?.delta.content ?? "";
            usage = chunk.usage ?? usage;
        }
        expect(streamed).toBe(reply.choices[0]!.message.content);
        expect(usage!.prompt_tokens).toBe(reply.usage!.prompt_tokens);
    });

    visionIt("reuses a cached image in the next turn, answering as a fresh evaluation does", async () => {
        const picture = png(48, 32, 7);
        const first = await ask("llava", [text("Describe it."), image(picture)]);
        // The assistant's turn is fixed text: the comparison is of the image's cache, not of how a
        // sampled reply re-tokenizes (README: a cached reply is read in the tokens it was sampled as).
        const turn = [
            {role: "user" as const, content: [text("Describe it."), image(picture)]},
            {role: "assistant" as const, content: "A picture."},
            {role: "user" as const, content: "And the colours?"}
        ];
        const cached = await client.chat.completions.create({model: "llava", temperature: 0, max_tokens: 8, messages: turn});
        // The whole first prompt, image included, came from the cache.
        expect(cached.usage!.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(first.usage!.prompt_tokens - 1);

        await fetch(`${server.url}/models/llava/unload`, {method: "POST"});
        const fresh = await client.chat.completions.create({model: "llava", temperature: 0, max_tokens: 8, messages: turn});
        expect(fresh.usage!.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);
        expect(fresh.choices[0]!.message.content).toBe(cached.choices[0]!.message.content);
        expect(fresh.usage!.prompt_tokens).toBe(cached.usage!.prompt_tokens);
    });

    visionIt("cuts the cache at a changed image, and takes two images in one message", async () => {
        const first = await ask("llava", [text("Compare:"), image(png(32, 32, 1))]);
        const changed = await ask("llava", [text("Compare:"), image(png(32, 32, 2))]);
        const cachedBeforeImage = changed.usage!.prompt_tokens_details?.cached_tokens ?? 0;
        expect(cachedBeforeImage).toBeLessThan(first.usage!.prompt_tokens - TINY_LLAVA_IMAGE_TOKENS + 1);

        const two = await ask("llava", [text("Compare:"), image(png(32, 32, 1)), image(png(32, 32, 2))]);
        expect(two.usage!.prompt_tokens - first.usage!.prompt_tokens).toBeGreaterThanOrEqual(TINY_LLAVA_IMAGE_TOKENS);
    });

    visionIt("copies a running sequence's images to a request that shares them", async () => {
        // Four images (64 tokens) and text: a prefix long enough to be copied rather than evaluated again.
        const parts = [text("Four views:"), ...[11, 12, 13, 14].map((seed) => image(png(32, 32, seed))), text("Which differs?")];
        const first = await client.chat.completions.create({
            model: "llava", temperature: 0, max_tokens: 400, stream: true, messages: [{role: "user", content: parts}]
        });
        let firstText = "";
        let copied: OpenAI.ChatCompletion | undefined;
        for await (const chunk of first) {
            firstText += chunk.choices[0]?.delta.content ?? "";
            // Once the first generates, its sequence is busy: the second takes the other one and copies
            // the first's cells (images included) before evaluating the rest.
            if (firstText !== "") {
                copied = await ask("llava", parts, {max_tokens: 4});
                break;
            }
        }
        expect(copied!.usage!.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(4 * TINY_LLAVA_IMAGE_TOKENS);
        const again = await ask("llava", parts, {max_tokens: 4});
        expect(copied!.choices[0]!.message.content).toBe(again.choices[0]!.message.content);
    });

    visionIt("takes the same image through the Responses API's input_image and the Messages API's image block", async () => {
        const picture = png(40, 30, 21);
        const chat = await ask("llava", [text("What is this?"), image(picture)], {max_tokens: 6});
        const response = await client.responses.create({
            model: "llava", temperature: 0, max_output_tokens: 6,
            input: [{role: "user", content: [{type: "input_text", text: "What is this?"}, {type: "input_image", image_url: picture, detail: "auto"}]}]
        });
        expect(response.usage!.input_tokens).toBe(chat.usage!.prompt_tokens);
        expect(response.output_text).toBe(chat.choices[0]!.message.content);

        const anthropic = new Anthropic({baseURL: server.url.replace(/\/v1$/, ""), apiKey: "none", maxRetries: 0});
        // As a const object, the way the Messages tests pass temperature (this SDK's params type lacks it).
        const request = {
            model: "llava", temperature: 0, max_tokens: 6,
            messages: [{role: "user" as const, content: [
                {type: "text" as const, text: "What is this?"},
                {type: "image" as const, source: {type: "base64" as const, media_type: "image/png" as const, data: picture.slice("data:image/png;base64,".length)}}
            ]}]
        };
        const message = await anthropic.messages.create(request);
        expect(message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0)).toBe(chat.usage!.prompt_tokens);
        expect(message.content[0]).toMatchObject({type: "text", text: chat.choices[0]!.message.content});
    });

    visionIt("shows a tool result's image to a vision model, and reads it as [image] to one without", async () => {
        const anthropic = new Anthropic({baseURL: server.url.replace(/\/v1$/, ""), apiKey: "none", maxRetries: 0});
        const screenshot = png(32, 32, 31).slice("data:image/png;base64,".length);
        const conversation = (model: string, withImage: boolean) => ({
            model, temperature: 0, max_tokens: 4,
            tools: [{name: "read", description: "Reads a file", input_schema: {type: "object" as const, properties: {path: {type: "string"}}}}],
            messages: [
                {role: "user" as const, content: "Look at shot.png"},
                {role: "assistant" as const, content: [{type: "tool_use" as const, id: "toolu_1", name: "read", input: {path: "shot.png"}}]},
                {role: "user" as const, content: [{type: "tool_result" as const, tool_use_id: "toolu_1", content: withImage
                    ? [{type: "text" as const, text: "shot.png:"}, {type: "image" as const, source: {type: "base64" as const, media_type: "image/png" as const, data: screenshot}}]
                    : [{type: "text" as const, text: "shot.png:"}]}]}
            ]
        });
        const seen = await anthropic.messages.create(conversation("llava", true));
        const textOnly = await anthropic.messages.create(conversation("llava", false));
        const total = (usage: Anthropic.Usage) => usage.input_tokens + (usage.cache_read_input_tokens ?? 0);
        expect(total(seen.usage) - total(textOnly.usage)).toBeGreaterThanOrEqual(TINY_LLAVA_IMAGE_TOKENS);

        const blind = await anthropic.messages.create(conversation("text", true));
        expect(blind.type).toBe("message");
    });

    visionIt("decodes JPEG as well as PNG", async () => {
        const jpeg = dataUri(encodeJpeg(24, 24, gradient(24, 24, 3)), "image/jpeg");
        const reply = await ask("llava", [image(jpeg), text("What is it?")]);
        expect(reply.usage!.prompt_tokens).toBeGreaterThan(TINY_LLAVA_IMAGE_TOKENS);
    });

    visionIt("serves a non-causal projector (Gemma 3) and an M-RoPE pair (Qwen2-VL), counting cells", async () => {
        const gemma = await ask("gemma", [text("Look:"), image(png(32, 32))]);
        expect(gemma.choices[0]!.finish_reason).toMatch(/stop|length/);

        // 40×24 → 12 image tokens in 3 positions (max(w, h) / 16), plus the two delimiters around them.
        const qwen = await ask("qwen", [text("Look:"), image(png(40, 24))]);
        const qwenText = await ask("qwen", [text("Look:")]);
        expect(qwen.usage!.prompt_tokens - qwenText.usage!.prompt_tokens).toBeGreaterThanOrEqual(12 + 2);
        const turn = [
            {role: "user" as const, content: [text("Look:"), image(png(40, 24))]},
            {role: "assistant" as const, content: "Seen."},
            {role: "user" as const, content: "More?"}
        ];
        const cached = await client.chat.completions.create({model: "qwen", temperature: 0, max_tokens: 6, messages: turn});
        expect(cached.usage!.prompt_tokens_details?.cached_tokens).toBeGreaterThan(0);
        // 200×100 → 78 embeddings at one time position: decoded in slices, each at that position.
        const wide = await ask("qwen", [text("Look:"), image(png(200, 100))]);
        expect(wide.usage!.prompt_tokens - qwenText.usage!.prompt_tokens).toBeGreaterThanOrEqual(78 + 2);
        await fetch(`${server.url}/models/qwen/unload`, {method: "POST"});
        const fresh = await client.chat.completions.create({model: "qwen", temperature: 0, max_tokens: 6, messages: turn});
        expect(fresh.choices[0]!.message.content).toBe(cached.choices[0]!.message.content);
    });

    visionIt("keeps a text stream generating while another request's image is evaluated", async () => {
        const textStream = client.chat.completions.create({
            model: "llava", temperature: 0, max_tokens: 24, stream: true, messages: [{role: "user", content: "Tell a story."}]
        });
        const vision = ask("llava", [text("What is this?"), image(png(64, 64, 9))]);
        let streamed = 0;
        for await (const chunk of await textStream)
            streamed += chunk.choices[0]?.delta.content == null ? 0 : 1;
        expect(streamed).toBeGreaterThan(0);
        expect((await vision).choices[0]!.message.role).toBe("assistant");
    });

    const refusal = async (model: string, url: string): Promise<{status: number, code: string | null | undefined, param: string | null | undefined}> => {
        const error = await ask(model, [text("What is this?"), image(url)]).then(() => null, (caught: unknown) => caught);
        expect(error).toBeInstanceOf(OpenAI.APIError);
        const {status, code, param} = error as InstanceType<typeof OpenAI.APIError>;
        return {status: status!, code, param};
    };

    visionIt("answers every bad image with a 400 naming it, and serves on", async () => {
        const param = "messages[0].content[1].image_url.url";
        expect(await refusal("llava", "data:image/png;base64,%%%not-base64%%%")).toMatchObject({status: 400, param});
        expect(await refusal("llava", dataUri(Buffer.from("plain text, not an image at all"), "image/png"))).toMatchObject({status: 400, param});
        expect(await refusal("llava", dataUri(Buffer.alloc(300_000, 1)))).toMatchObject({status: 400, param, code: "image_too_large"});
        // A decompression bomb's header: 100,000 × 100,000 pixels claimed by a few bytes.
        expect(await refusal("llava", dataUri(pngHeader(100_000, 100_000)))).toMatchObject({status: 400, param, code: "image_too_large"});
        expect(await refusal("llava", "http://127.0.0.1:1/secret.png")).toMatchObject({status: 400, param});
        expect(await refusal("llava", "file:///etc/passwd")).toMatchObject({status: 400, param});
        expect(await refusal("text", png(16, 16))).toMatchObject({status: 400, code: "image_input_not_supported"});
        const after = await ask("llava", [text("Still there?"), image(png(16, 16))]);
        expect(after.choices[0]!.message.role).toBe("assistant");
    });
});
