import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {encodePng, gradient} from "../../../fixtures/images.js";
import {buildTinyLlavaModel, TINY_LLAVA_IMAGE_TOKENS} from "../../../fixtures/gguf/visionModels.js";
import {buildTinyChatModel, buildTinyEmbeddingModel} from "../../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

/**
 * /tokenize, /detokenize, /apply-template and chat input_tokens on models the tests build: a
 * SentencePiece chat model with a ChatML tools template, a WordPiece (BERT) embedder, a LLaVA-style
 * vision pair. llamaServerParity.test.ts compares the answers with llama-server's where it can run.
 */
describe("tokens and prompts on tiny models", () => {
    let dir: string;
    let server: TestServer;
    const post = async (route: string, body: unknown) => {
        const res = await fetch(`${server.url.replace(/\/v1$/, "")}${route}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
        return {status: res.status, body: await res.json() as any};
    };
    const tokenize = async (body: Record<string, unknown>) => (await post("/tokenize", body)).body.tokens as Array<number | {id: number, piece: string | number[]}>;

    beforeAll(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-tokens-"));
        const llava = await buildTinyLlavaModel(dir);
        server = await startTestServer({
            "tiny-chat": await buildTinyChatModel(undefined, {tools: true}),
            "tiny-embed": await buildTinyEmbeddingModel(),
            llava: llava.model, "mmproj-llava": llava.mmproj
        }, {ctxSize: 1024});
    }, 60_000);
    afterAll(async () => {
        await server?.stop();
        await fs.rm(dir, {recursive: true, force: true});
    });

    it("tokenizes and detokenizes back, special-token text read as tokens unless parse_special is false", async () => {
        const text = "<|im_start|>user\nthe cat sat<|im_end|>";
        const tokens = await tokenize({model: "tiny-chat", content: text}) as number[];
        const plain = await tokenize({model: "tiny-chat", content: text, parse_special: false}) as number[];
        expect(plain.length).toBeGreaterThan(tokens.length);
        // As llama-server's: the pieces one after another, with the space SentencePiece put after the special token ("▁user").
        const spelled = "<|im_start|> user\nthe cat sat<|im_end|>";
        expect((await post("/detokenize", {model: "tiny-chat", tokens})).body).toEqual({content: spelled});

        const pieces = await tokenize({model: "tiny-chat", content: text, with_pieces: true}) as Array<{id: number, piece: string}>;
        expect(pieces.map((token) => token.id)).toEqual(tokens);
        expect(pieces[0]!.piece).toBe("<|im_start|>");
        expect(pieces.map((token) => token.piece).join("")).toBe(spelled);
    });

    it("adds the vocabulary's own special tokens with add_special: BOS for the chat model, [CLS] … [SEP] for BERT", async () => {
        const chat = await tokenize({model: "tiny-chat", content: "the cat"}) as number[];
        const withBos = await tokenize({model: "tiny-chat", content: "the cat", add_special: true}) as number[];
        expect(withBos.slice(1)).toEqual(chat);
        expect((await post("/detokenize", {model: "tiny-chat", tokens: withBos.slice(0, 1)})).body.content).toBe("<s>");

        const bert = await tokenize({model: "tiny-embed", content: "the cat", add_special: true, with_pieces: true}) as Array<{piece: string}>;
        expect(bert.at(0)!.piece).toBe("[CLS]");
        expect(bert.at(-1)!.piece).toBe("[SEP]");
    });

    it("refuses ids outside the vocabulary with a 400 naming them", async () => {
        const tooBig = await post("/detokenize", {model: "tiny-chat", tokens: [5, 10_000_000]});
        expect(tooBig.status).toBe(400);
        expect(tooBig.body.error).toMatchObject({param: "tokens", message: expect.stringContaining("10000000")});
        const mixed = await post("/tokenize", {model: "tiny-chat", content: ["a", 10_000_000]});
        expect(mixed.status).toBe(400);
        expect(mixed.body.error.param).toBe("content[1]");
    });

    const weather = {type: "function", function: {name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}}}};

    it("renders the prompt the chat request evaluates, tools included, and counts it as that request's usage does", async () => {
        const chat = {model: "tiny-chat", messages: [{role: "system", content: "Be brief."}, {role: "user", content: "the cat sat"}], tools: [weather]};
        const {status, body} = await post("/apply-template", chat);
        expect(status).toBe(200);
        expect(body.prompt).toContain("<|im_start|>system\nBe brief.");
        expect(body.prompt).toContain("get_weather");
        expect(body.prompt).toMatch(/<\|im_start\|>user\nthe cat sat<\|im_end\|>\n<\|im_start\|>assistant\n$/);

        const count = (await post("/v1/chat/completions/input_tokens", chat)).body;
        const completion = (await post("/v1/chat/completions", {...chat, max_tokens: 1, temperature: 0})).body;
        expect(count).toEqual({object: "response.input_tokens", input_tokens: completion.usage.prompt_tokens});
        // The text is the prompt's tokens spelled back: tokenized again (with BOS) it is as many tokens.
        expect((await tokenize({model: "tiny-chat", content: body.prompt, add_special: true})).length).toBe(count.input_tokens);
    });

    it("renders an image as the media marker and counts its positions", async (context) => {
        if (!server.vision.available)
            return context.skip(`this llama.cpp build has no vision: ${server.vision.reason}`);
        const url = `data:image/png;base64,${encodePng(8, 8, gradient(8, 8)).toString("base64")}`;
        const withImage = {model: "llava", messages: [{role: "user", content: [{type: "text", text: "the cat"}, {type: "image_url", image_url: {url}}]}]};
        const textOnly = {model: "llava", messages: [{role: "user", content: [{type: "text", text: "the cat"}]}]};
        const prompt = (await post("/apply-template", withImage)).body.prompt as string;
        expect(prompt.match(/<__media_[0-9a-f]+__>/g)).toHaveLength(1);
        const withCount = (await post("/v1/chat/completions/input_tokens", withImage)).body.input_tokens as number;
        const completion = (await post("/v1/chat/completions", {...withImage, max_tokens: 1, temperature: 0})).body;
        expect(completion.usage.prompt_tokens).toBe(withCount);
        const textCount = (await post("/v1/chat/completions/input_tokens", textOnly)).body.input_tokens as number;
        expect(withCount - textCount).toBeGreaterThanOrEqual(TINY_LLAVA_IMAGE_TOKENS);
    });
});
