// What two IDEs send an Ollama server, replayed request by request against a real chatserve:
// Zed's Ollama provider (tags → show → chat as NDJSON with keep_alive and num_ctx, edit predictions
// as a raw FIM generate) and VS Code Copilot's (version → tags → show → chat over the OpenAI
// shape, on the same base URL, with the name /api/tags gave). And an image through the official
// client on the tiny vision fixture.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {Ollama} from "ollama";
import OpenAI from "openai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyLlavaModel} from "../../../fixtures/gguf/visionModels.js";
import {buildTinyChatModel} from "../../../fixtures/gguf/tinyModels.js";
import {encodePng, gradient} from "../../../fixtures/images.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

type Show = {capabilities: string[], model_info: Record<string, unknown>, details: {family: string}, parameters: string, template: string};

describe("IDE discovery and chat sequences, replayed", () => {
    let dir: string;
    let server: TestServer;
    let base: string;
    const post = (route: string, body: unknown) => fetch(`${base}${route}`, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)});

    beforeAll(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-ollama-ides-"));
        const llava = await buildTinyLlavaModel(dir);
        server = await startTestServer({
            "tiny-fim": await buildTinyChatModel(undefined, {fim: true}),
            "tiny-tools": await buildTinyChatModel(undefined, {tools: true}),
            llava: llava.model, "mmproj-llava": llava.mmproj
        }, {ctxSize: 1024, maxImagePixels: 4096 * 4096});
        base = server.url.replace(/\/v1$/, "");
    }, 60_000);
    afterAll(async () => {
        await server?.stop();
        await fs.rm(dir, {recursive: true, force: true});
    });

    it("Zed: tags, show per model, a streamed chat with keep_alive and num_ctx as show said, a raw FIM generate", async () => {
        const tags = await (await fetch(`${base}/api/tags`)).json() as {models: Array<{name: string}>};
        const shows = new Map<string, Show>();
        for (const {name} of tags.models)
            shows.set(name, await (await post("/api/show", {model: name})).json() as Show);
        const tools = shows.get("tiny-tools:latest")!;
        expect(tools.capabilities).toContain("tools");
        const contextLength = tools.model_info[`${tools.details.family}.context_length`] as number;
        expect(contextLength).toBe(1024);

        const chat = await post("/api/chat", {
            model: "tiny-tools:latest", keep_alive: "5m", stream: true,
            messages: [{role: "system", content: "You are a coding assistant."}, {role: "user", content: "Rename this variable."}],
            options: {num_ctx: contextLength, num_predict: 8, temperature: 0},
            tools: [{type: "function", function: {name: "read_file", description: "Read a file", parameters: {type: "object", properties: {path: {type: "string"}}, required: ["path"]}}}]
        });
        expect(chat.status).toBe(200);
        expect(chat.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
        const lines = (await chat.text()).trim().split("\n").map((line) => JSON.parse(line) as {done: boolean, done_reason?: string});
        expect(lines.at(-1)).toMatchObject({done: true});
        expect(lines.slice(0, -1).every((line) => !line.done)).toBe(true);

        // Edit predictions: the model's own FIM tokens in a raw prompt, as Zed frames them for a FIM model.
        expect(shows.get("tiny-fim:latest")!.capabilities).toContain("insert");
        const prediction = await post("/api/generate", {
            model: "tiny-fim:latest", raw: true, stream: false, keep_alive: "5m",
            prompt: "<|fim_prefix|>fn main() {\n    let x = <|fim_suffix|>;\n}<|fim_middle|>",
            options: {num_predict: 6, temperature: 0, stop: ["<|endoftext|>"]}
        });
        expect(prediction.status).toBe(200);
        expect(await prediction.json()).toMatchObject({done: true, response: expect.any(String), eval_count: expect.any(Number)});
    });

    it("VS Code Copilot: version ≥ 0.6.4, tags, show per model (vision, context), then chat over /v1 with the tags' name", async () => {
        const {version} = await (await fetch(`${base}/api/version`)).json() as {version: string};
        const [major, minor, patch] = version.split(".").map(Number) as [number, number, number];
        expect(major > 0 || minor > 6 || (minor === 6 && patch >= 4)).toBe(true);
        const tags = await (await fetch(`${base}/api/tags`)).json() as {models: Array<{model: string}>};
        const llava = await (await post("/api/show", {model: "llava:latest"})).json() as Show;
        expect(llava.capabilities).toContain("vision");
        expect(llava.model_info[`${llava.details.family}.context_length`]).toBe(1024);
        expect(tags.models.map((model) => model.model)).toContain("llava:latest");

        const openai = new OpenAI({baseURL: `${base}/v1`, apiKey: "ollama", maxRetries: 0});
        // Greedy: a sampled reply of a random-weight model can end its turn within 4 tokens.
        const stream = await openai.chat.completions.create({model: "tiny-tools:latest", stream: true, max_tokens: 4, temperature: 0, messages: [{role: "user", content: "hi"}]});
        let finish: string | null = null;
        for await (const chunk of stream)
            finish = chunk.choices[0]?.finish_reason ?? finish;
        expect(finish).toBe("length");
    });

    it("an image through the official client, on the tiny vision fixture", async (context) => {
        if (!server.vision.available)
            return context.skip(`this llama.cpp build has no vision: ${server.vision.reason}`);
        const ollama = new Ollama({host: base});
        const image = encodePng(32, 24, gradient(32, 24)).toString("base64");
        const withImage = await ollama.chat({model: "llava", stream: false, messages: [{role: "user", content: "What is this?", images: [image]}], options: {num_predict: 4, temperature: 0}});
        const without = await ollama.chat({model: "llava", stream: false, messages: [{role: "user", content: "What is this?"}], options: {num_predict: 4, temperature: 0}});
        expect(withImage.done).toBe(true);
        // The image's tokens are in the prompt.
        expect(withImage.prompt_eval_count).toBeGreaterThan(without.prompt_eval_count + 10);
        await expect(ollama.chat({model: "tiny-tools", messages: [{role: "user", content: "x", images: [image]}]})).rejects.toMatchObject({
            status_code: 400, error: expect.stringContaining("messages[0].images[0]")
        });
    });
});
