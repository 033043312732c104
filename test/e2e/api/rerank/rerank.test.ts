import {CohereClient, CohereClientV2} from "cohere-ai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyQwen3RerankerModel, buildTinyRerankerModel, QWEN3_RERANK_TEMPLATE} from "../../../fixtures/gguf/rerankerModel.js";
import {buildTinyChatModel, buildTinyEmbeddingModel} from "../../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const query = "the cat sat on the mat";
const documents = ["a cat", "the dog ran", "mat and hat", "on the big red mat the cat sat", "hello"];

/** Reranking on a real (tiny, random-weight) BERT cross-encoder, through raw HTTP and Cohere's SDKs. */
describe("POST /v1/rerank on a tiny reranker", () => {
    let server: TestServer;
    const post = async (path: string, body: unknown) => {
        const res = await fetch(`${server.url.replace(/\/v1$/, "")}${path}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
        return {status: res.status, body: await res.json() as Record<string, any>};
    };

    beforeAll(async () => {
        server = await startTestServer({
            "tiny-reranker": await buildTinyRerankerModel(),
            "tiny-qwen3-reranker": await buildTinyQwen3RerankerModel(),
            "tiny-embed": await buildTinyEmbeddingModel(),
            "tiny-chat": await buildTinyChatModel()
        });
    });
    afterAll(async () => server?.stop());

    it("lists rerank as the reranker's one capability", async () => {
        const models = (await (await fetch(`${server.url}/models`)).json()) as {data: Array<{id: string, capabilities: string[]}>};
        expect(models.data.find((model) => model.id === "tiny-reranker")!.capabilities).toEqual(["rerank"]);
        expect(models.data.find((model) => model.id === "tiny-qwen3-reranker")!.capabilities).toEqual(["rerank"]);
        expect(models.data.find((model) => model.id === "tiny-embed")!.capabilities).toEqual(["embeddings"]);
    });

    it("scores every document (0–1), best first, the same on every call; each pair's score does not depend on the others", async () => {
        const first = await post("/v1/rerank", {model: "tiny-reranker", query, documents});
        expect(first.status).toBe(200);
        const results = first.body.results as Array<{index: number, relevance_score: number}>;
        expect(results.map((result) => result.index).sort()).toEqual([0, 1, 2, 3, 4]);
        for (const [at, result] of results.entries()) {
            expect(result.relevance_score).toBeGreaterThan(0);
            expect(result.relevance_score).toBeLessThan(1);
            if (at > 0)
                expect(result.relevance_score).toBeLessThanOrEqual(results[at - 1]!.relevance_score);
        }
        // Random weights still tell documents apart: not one score for all.
        expect(new Set(results.map((result) => result.relevance_score)).size).toBeGreaterThan(1);

        const again = await post("/rerank", {model: "tiny-reranker", query, documents});
        expect(again.body.results).toEqual(results);
        const reversed = await post("/v1/rerank", {model: "tiny-reranker", query, documents: [...documents].reverse()});
        const scoreOf = (body: Record<string, any>, document: string, order: string[]) =>
            (body.results as Array<{index: number, relevance_score: number}>).find((result) => order[result.index] === document)!.relevance_score;
        for (const document of documents)
            expect(scoreOf(reversed.body, document, [...documents].reverse())).toBeCloseTo(scoreOf(first.body, document, documents), 5);
    });

    it("counts each pair's tokens in usage: [CLS] query [SEP] document, as llama-server lays a BERT pair out", async () => {
        const lengthOf = async (content: string) => ((await post("/tokenize", {model: "tiny-reranker", content})).body.tokens as number[]).length;
        const queryTokens = await lengthOf(query);
        let expected = 0;
        for (const document of documents)
            expected += queryTokens + await lengthOf(document) + 2;
        const reply = await post("/v1/rerank", {model: "tiny-reranker", query, documents, top_n: 2, return_documents: true});
        expect(reply.body.usage).toEqual({prompt_tokens: expected, total_tokens: expected});
        expect(reply.body.results).toHaveLength(2);
        expect(reply.body.results[0].document).toEqual({text: documents[reply.body.results[0].index]});
    });

    it("lays a pair out in the GGUF's rerank template where it has one (Qwen3's), and scores it through its softmax head", async () => {
        const reply = await post("/v1/rerank", {model: "tiny-qwen3-reranker", query, documents});
        expect(reply.status).toBe(200);
        for (const result of reply.body.results as Array<{relevance_score: number}>) {
            expect(result.relevance_score).toBeGreaterThan(0);
            expect(result.relevance_score).toBeLessThan(1);
        }
        let expected = 0;
        for (const document of documents) {
            const text = QWEN3_RERANK_TEMPLATE.replace("{query}", query).replace("{document}", document);
            expected += ((await post("/tokenize", {model: "tiny-qwen3-reranker", content: text})).body.tokens as number[]).length;
        }
        expect(reply.body.usage.prompt_tokens).toBe(expected);
    });

    it("is what Cohere's SDKs, v1 and v2, get back", async () => {
        const origin = server.url.replace(/\/v1$/, "");
        const raw = (await post("/v1/rerank", {model: "tiny-reranker", query, documents})).body.results as Array<{index: number, relevance_score: number}>;

        const v1 = new CohereClient({token: "no-key", environment: origin});
        const one = await v1.rerank({model: "tiny-reranker", query, documents: documents.map((text) => ({text})), topN: 3, returnDocuments: true});
        expect(one.results.map((result) => [result.index, result.relevanceScore])).toEqual(raw.slice(0, 3).map((result) => [result.index, result.relevance_score]));
        expect(one.results[0]!.document?.text).toBe(documents[raw[0]!.index]);

        const v2 = new CohereClientV2({token: "no-key", environment: origin});
        const two = await v2.rerank({model: "tiny-reranker", query, documents, topN: 2});
        expect(two.results.map((result) => result.index)).toEqual(raw.slice(0, 2).map((result) => result.index));
    });

    it("gives its ranking slot back when its client leaves mid-request: the next request is served (a leaked slot would hang it)", async () => {
        const leaving = new AbortController();
        const many = Array.from({length: 1000}, (_, index) => `the cat number ${index} sat on the mat `.repeat(20));
        const left = fetch(`${server.url}/rerank`, {
            method: "POST", headers: {"Content-Type": "application/json"}, signal: leaving.signal,
            body: JSON.stringify({model: "tiny-reranker", query, documents: many})
        }).catch((error: unknown) => error);
        // Once the server has the request (the model is held), the client goes.
        await new Promise((resolve) => setTimeout(resolve, 200));
        leaving.abort();
        expect(await left).toBeInstanceOf(Error);
        const next = await post("/v1/rerank", {model: "tiny-reranker", query, documents});
        expect(next.status).toBe(200);
        expect(next.body.results).toHaveLength(documents.length);
    });

    it("refuses what it cannot serve with a 400, and serves on", async () => {
        const long = await post("/v1/rerank", {model: "tiny-reranker", query, documents: ["short", "word ".repeat(600)]});
        expect(long.status).toBe(400);
        expect(long.body.error).toMatchObject({param: "documents[1]", code: "context_length_exceeded"});
        const embedder = await post("/v1/rerank", {model: "tiny-embed", query, documents});
        expect(embedder.status).toBe(400);
        expect(embedder.body.error).toMatchObject({param: "model", code: "unsupported_model"});
        const asEmbedder = await post("/v1/embeddings", {model: "tiny-reranker", input: "x"});
        expect(asEmbedder.status).toBe(400);
        const asChat = await post("/v1/chat/completions", {model: "tiny-reranker", messages: [{role: "user", content: "hi"}]});
        expect(asChat.status).toBe(400);
        expect((await post("/v1/rerank", {model: "tiny-reranker", query, documents})).status).toBe(200);
    });
});
