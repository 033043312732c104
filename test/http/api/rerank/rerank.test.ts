import request from "supertest";
import {describe, expect, it} from "vitest";
import {descriptor, testDescriptors} from "../../support/fakeEngine.js";
import {createTestApp, errorOf} from "../../support/testApp.js";

// The double scores a document by the share of its words that are in the query (fakeEngine.ts).
const withReranker = () => [...testDescriptors(), descriptor("reranker", {architecture: "bert", capabilities: ["rerank"]})];
const documents = ["the sky is blue", "grass is green and the sky is blue", "sky blue", "nothing here"];
const query = "sky blue";

describe("POST /v1/rerank", () => {
    it("answers Jina's and Cohere's shape, best first, with each document's index and the tokens counted", async () => {
        const {app} = createTestApp({descriptors: withReranker()});
        const res = await request(app).post("/v1/rerank").send({model: "reranker", query, documents});
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
            model: "reranker",
            object: "list",
            results: [
                {index: 2, relevance_score: 1},
                {index: 0, relevance_score: 0.5},
                {index: 1, relevance_score: 0.25},
                {index: 3, relevance_score: 0}
            ],
            usage: {prompt_tokens: 2 * 4 + 4 + 8 + 2 + 2, total_tokens: 2 * 4 + 4 + 8 + 2 + 2}
        });
    });

    it("keeps the top_n best, and returns their texts when asked, from strings or {text} objects", async () => {
        const {app} = createTestApp({descriptors: withReranker()});
        const res = await request(app).post("/v1/rerank").send({
            model: "reranker", query, documents: documents.map((text, index) => index % 2 === 0 ? text : {text}), top_n: 2, return_documents: true
        });
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual([
            {index: 2, relevance_score: 1, document: {text: "sky blue"}},
            {index: 0, relevance_score: 0.5, document: {text: "the sky is blue"}}
        ]);
    });

    it("answers on llama-server's aliases too, and on Cohere's v2 path", async () => {
        const {app} = createTestApp({descriptors: withReranker()});
        for (const path of ["/rerank", "/v1/reranking", "/reranking", "/v2/rerank"]) {
            const res = await request(app).post(path).send({model: "reranker", query, documents});
            expect(res.status, path).toBe(200);
            expect(res.body.results[0]).toEqual({index: 2, relevance_score: 1});
        }
    });

    it("refuses bad input with a 400 in OpenAI's envelope naming the field", async () => {
        const {app} = createTestApp({descriptors: withReranker()});
        const cases: Array<[Record<string, unknown>, string]> = [
            [{model: "reranker", documents}, "query"],
            [{model: "reranker", query: "", documents}, "query"],
            [{model: "reranker", query}, "documents"],
            [{model: "reranker", query, documents: []}, "documents"],
            [{model: "reranker", query, documents: ["fine", 7]}, "documents[1]"],
            [{model: "reranker", query, documents: [{content: "no text"}]}, "documents[0]"],
            [{model: "reranker", query, documents: Array(1001).fill("x")}, "documents"],
            [{model: "reranker", query, documents, top_n: 0}, "top_n"],
            [{model: "reranker", query, documents, return_documents: "yes"}, "return_documents"],
            [{model: "", query, documents}, "model"],
            [{model: "reranker", query, documents, texts: documents}, "texts"],
            [{model: "reranker", query, texts: []}, "texts"],
            [{model: "reranker", query, texts: ["fine", null]}, "texts[1]"]
        ];
        for (const [body, param] of cases) {
            const res = await request(app).post("/v1/rerank").send(body);
            expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
            expect(errorOf(res.body).param).toBe(param);
        }
    });

    it("answers TEI's request (texts, return_text) in TEI's form, as llama-server does: the results alone, with score", async () => {
        const {app} = createTestApp({descriptors: withReranker()});
        const res = await request(app).post("/rerank").send({model: "reranker", query, texts: documents, top_n: 2, return_text: true});
        expect(res.status).toBe(200);
        expect(res.body).toEqual([{index: 2, score: 1, text: "sky blue"}, {index: 0, score: 0.5, text: "the sky is blue"}]);
        const bare = await request(app).post("/rerank").send({model: "reranker", query, texts: documents, return_documents: true});
        expect(bare.body).toHaveLength(4);
        expect(bare.body[0]).toEqual({index: 2, score: 1});
    });

    it("without a model, ranks on the folder's one reranker (TEI's request has none); with none or several, a 400 saying so", async () => {
        const {app} = createTestApp({descriptors: withReranker()});
        const tei = await request(app).post("/rerank").send({query, texts: documents});
        expect(tei.status).toBe(200);
        expect(tei.body[0]).toEqual({index: 2, score: 1});
        const jina = await request(app).post("/v1/rerank").send({query, documents});
        expect(jina.body).toMatchObject({model: "reranker", results: [{index: 2, relevance_score: 1}, {}, {}, {}]});

        const none = await request(createTestApp().app).post("/v1/rerank").send({query, documents});
        expect(none.status).toBe(400);
        expect(errorOf(none.body)).toMatchObject({param: "model", code: "missing_required_parameter", message: expect.stringContaining("holds no reranker")});
        const two = createTestApp({descriptors: [...withReranker(), descriptor("other-reranker", {architecture: "bert", capabilities: ["rerank"]})]});
        const several = await request(two.app).post("/v1/rerank").send({query, documents});
        expect(several.status).toBe(400);
        expect(errorOf(several.body).message).toContain("name one of 'reranker', 'other-reranker'");
        expect((await request(two.app).post("/v1/rerank").send({model: "other-reranker", query, documents})).status).toBe(200);
    });

    it("refuses a model that is not a reranker (400) and one that does not exist (404)", async () => {
        const {app} = createTestApp({descriptors: withReranker()});
        const chat = await request(app).post("/v1/rerank").send({model: "tiny-chat", query, documents});
        expect(chat.status).toBe(400);
        expect(errorOf(chat.body)).toMatchObject({param: "model", code: "unsupported_model", message: expect.stringContaining("does not support rerank")});
        const missing = await request(app).post("/v1/rerank").send({model: "nope", query, documents});
        expect(missing.status).toBe(404);
        errorOf(missing.body);
    });

    it("takes the API key on every path, those outside /v1 included", async () => {
        const {app} = createTestApp({descriptors: withReranker(), apiKeys: ["secret"]});
        for (const path of ["/v1/rerank", "/rerank", "/reranking", "/v2/rerank"]) {
            const refused = await request(app).post(path).send({model: "reranker", query, documents});
            expect(refused.status, path).toBe(401);
            expect(errorOf(refused.body).code).toBe("invalid_api_key");
            const served = await request(app).post(path).set("Authorization", "Bearer secret").send({model: "reranker", query, documents});
            expect(served.status, path).toBe(200);
        }
    });

    it("lists rerank among a reranker's capabilities in /v1/models", async () => {
        const {app} = createTestApp({descriptors: withReranker()});
        const res = await request(app).get("/v1/models/reranker");
        expect(res.status).toBe(200);
        expect(res.body.capabilities).toEqual(["rerank"]);
    });
});
