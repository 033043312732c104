import {existsSync} from "node:fs";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyQwen3RerankerModel, buildTinyRerankerModel} from "../../fixtures/gguf/rerankerModel.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {hasLlamaServer, startLlamaServer, type LlamaServer} from "../support/llamaServer.js";
import {sharedModels} from "../support/sharedModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/**
 * chatserve's llama-server endpoints answer as llama-server itself does on the same GGUF: token ids
 * and pieces, detokenized text, rendered prompts and their counts, rerank order and usage. Skipped
 * where llama-server (built from node-llama-cpp's llama.cpp: docs/performance.md) or the shared
 * Qwen2.5 model is absent, as in CI.
 */
const qwen = sharedModels.qwenTools;
const rerankTemplate = "[CLS] {query} [SEP] the {document} [SEP]";

describe.runIf(hasLlamaServer && existsSync(qwen))("the same answers as llama-server", () => {
    let chatserve: TestServer;
    let chatserveRoot: string;
    let qwenServer: LlamaServer;
    /** The tiny chat model: a SentencePiece vocabulary (a space before text after each special token) with a ChatML tools template. */
    let spmServer: LlamaServer;
    const rerankers: Record<string, LlamaServer> = {};
    const ours = async (path: string, body: unknown) => {
        const res = await fetch(`${chatserveRoot}${path}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
        return {status: res.status, body: await res.json() as any};
    };

    beforeAll(async () => {
        const reranker = await buildTinyRerankerModel();
        const templated = await buildTinyRerankerModel(undefined, {template: rerankTemplate});
        const qwen3Reranker = await buildTinyQwen3RerankerModel();
        const spm = await buildTinyChatModel(undefined, {tools: true});
        chatserve = await startTestServer({qwen, spm, "reranker": reranker, "reranker-template": templated, "reranker-qwen3": qwen3Reranker}, {ctxSize: 2048});
        chatserveRoot = chatserve.url.replace(/\/v1$/, "");
        qwenServer = await startLlamaServer(qwen, ["-c", "2048", "--jinja"]);
        spmServer = await startLlamaServer(spm, ["-c", "2048", "--jinja"]);
        rerankers.reranker = await startLlamaServer(reranker, ["--reranking", "-c", "512"]);
        rerankers["reranker-template"] = await startLlamaServer(templated, ["--reranking", "-c", "512"]);
        rerankers["reranker-qwen3"] = await startLlamaServer(qwen3Reranker, ["--reranking", "-c", "512"]);
    }, 120_000);
    afterAll(async () => {
        await Promise.all([qwenServer?.stop(), spmServer?.stop(), ...Object.values(rerankers).map((server) => server.stop())]);
        await chatserve?.stop();
    });

    const tokenizeCases: Array<Record<string, unknown>> = [
        {content: "Hello world, how are you?"},
        {content: "<|im_start|>user\nHi<|im_end|>"},
        {content: "<|im_start|>user\nHi<|im_end|>", parse_special: false},
        {content: "🦙 naïve 日本語 ∑", with_pieces: true},
        {content: "<|im_start|>x", with_pieces: true},
        {content: "Hi", add_special: true},
        {content: ["Hi", 151644, " there"], add_special: true, with_pieces: true},
        {content: ""}
    ];

    const servers = () => [["qwen", qwenServer], ["spm", spmServer]] as const;

    it("tokenizes as llama-server does: ids, pieces (bytes where a piece is half a character), special tokens", async () => {
        for (const [model, server] of servers())
            for (const request of tokenizeCases) {
                // The SentencePiece vocabulary has no id 151644: the mixed case uses one it has.
                const body = model === "spm" && Array.isArray(request.content) ? {...request, content: ["Hi", 3, " there"]} : request;
                const theirs = await server.post("/tokenize", body);
                const mine = await ours("/tokenize", {model, ...body});
                expect(mine.status).toBe(200);
                expect(mine.body, `${model} ${JSON.stringify(body)}`).toEqual(theirs.body);
            }
    });

    it("detokenizes as llama-server does", async () => {
        for (const [model, server] of servers())
            for (const request of tokenizeCases.filter((request) => typeof request.content === "string")) {
                const tokens = (await server.post("/tokenize", {...request, with_pieces: false})).body.tokens as number[];
                const theirs = await server.post("/detokenize", {tokens});
                const mine = await ours("/detokenize", {model, tokens});
                expect(mine.body, `${model} ${JSON.stringify(request)}`).toEqual(theirs.body);
            }
    });

    const weather = {type: "function", function: {name: "get_weather", description: "The weather in a city", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}}};
    const chats: Array<Record<string, unknown>> = [
        {messages: [{role: "user", content: "Hello"}]},
        {messages: [{role: "system", content: "Be brief."}, {role: "user", content: "Hello"}, {role: "assistant", content: "Hi!"}, {role: "user", content: "How are you?"}]},
        {messages: [{role: "user", content: "Weather in Paris?"}], tools: [weather]},
        {
            messages: [
                {role: "user", content: "Weather in Paris?"},
                {role: "assistant", content: null, tool_calls: [{id: "call_1", type: "function", function: {name: "get_weather", arguments: "{\"city\":\"Paris\"}"}}]},
                {role: "tool", tool_call_id: "call_1", content: "18 C, sunny"}
            ],
            tools: [weather]
        }
    ];

    it("renders the prompt llama-server renders (/apply-template), and counts it as its input_tokens does", async () => {
        for (const [model, server] of servers())
            for (const chat of chats) {
                const theirs = await server.post("/apply-template", chat);
                const mine = await ours("/apply-template", {model, ...chat});
                expect(mine.status).toBe(200);
                expect(mine.body, `${model} ${JSON.stringify(chat)}`).toEqual(theirs.body);

                const theirCount = await server.post("/v1/chat/completions/input_tokens", chat);
                const myCount = await ours("/v1/chat/completions/input_tokens", {model, ...chat});
                expect(myCount.body, `${model} ${JSON.stringify(chat)}`).toEqual(theirCount.body);
            }
    });

    it("counts the same prompt_tokens in a chat completion's usage as input_tokens", async () => {
        for (const chat of chats) {
            const count = (await ours("/v1/chat/completions/input_tokens", {model: "qwen", ...chat})).body.input_tokens;
            const completion = await ours("/v1/chat/completions", {model: "qwen", ...chat, max_tokens: 1, temperature: 0});
            expect(completion.body.usage.prompt_tokens).toBe(count);
        }
    });

    it("reranks in llama-server's order with its usage; a BERT score is the probability of llama-server's logit, a Qwen3 one is llama-server's", async () => {
        const query = "the cat sat on the mat";
        const documents = ["a cat", "the dog ran", "mat and hat", "on the big red mat the cat sat", "hello", ""];
        for (const model of ["reranker", "reranker-template", "reranker-qwen3"]) {
            const theirs = (await rerankers[model]!.post("/v1/rerank", {model, query, documents})).body;
            const mine = (await ours("/v1/rerank", {model, query, documents})).body;
            expect(mine.usage, model).toEqual(theirs.usage);
            expect(mine.results.map((result: {index: number}) => result.index), model).toEqual(theirs.results.map((result: {index: number}) => result.index));
            // llama.cpp's graph ends a Qwen3 reranker in a softmax: its score is a probability already.
            const probability = (score: number) => model === "reranker-qwen3" ? score : 1 / (1 + Math.exp(-score));
            for (const [at, result] of (theirs.results as Array<{relevance_score: number}>).entries())
                expect(mine.results[at].relevance_score, model).toBeCloseTo(probability(result.relevance_score), 5);
        }
    });

    it("answers TEI's request (texts, return_text, no model) in TEI's form as llama-server does: the same order and texts, score as relevance_score", async () => {
        const query = "the cat sat on the mat";
        const texts = ["a cat", "the dog ran", "mat and hat", "on the big red mat the cat sat", "hello"];
        const theirs = (await rerankers.reranker!.post("/rerank", {query, texts, return_text: true, top_n: 3})).body as Array<{index: number, score: number, text: string}>;
        // chatserve serves several rerankers here: TEI's request names none, so this one names it.
        const mine = (await ours("/rerank", {model: "reranker", query, texts, return_text: true, top_n: 3})).body as typeof theirs;
        expect(mine.map(({index, text}) => ({index, text}))).toEqual(theirs.map(({index, text}) => ({index, text})));
        for (const [at, result] of theirs.entries())
            expect(mine[at]!.score).toBeCloseTo(1 / (1 + Math.exp(-result.score)), 5);
    });

    it("tokenizes as llama-server does on a WordPiece (BERT) vocabulary too: [CLS] … [SEP], word pieces", async () => {
        for (const request of [{content: "the cat sat, on the mat!", with_pieces: true}, {content: "hello world", add_special: true, with_pieces: true}]) {
            const theirs = await rerankers.reranker!.post("/tokenize", request);
            const mine = await ours("/tokenize", {model: "reranker", ...request});
            expect(mine.body, JSON.stringify(request)).toEqual(theirs.body);
            const tokens = theirs.body.tokens.map((token: {id: number}) => token.id);
            expect((await ours("/detokenize", {model: "reranker", tokens})).body).toEqual((await rerankers.reranker!.post("/detokenize", {tokens})).body);
        }
    });
});
