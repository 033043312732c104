import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyRerankerModel} from "../../../fixtures/gguf/rerankerModel.js";
import {buildTinyEmbeddingModel} from "../../../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "../../support/testServer.js";

const key = "owui-key";
const query = "which animal sat on the mat?";
// Open WebUI's chunks: an empty one included (a blank page's chunk reaches the reranker too).
const documents = ["a cat sat on the mat", "the dog ran", "", "mats and hats ünïcode 🦙", "hello"];

/**
 * Open WebUI's external reranker (backend/open_webui/retrieval/models/external.py, ExternalReranker.predict)
 * as it sends and reads: POST {model, query, documents, top_n: len(documents)} to the URL as given, a
 * Bearer key (and, with ENABLE_FORWARD_USER_INFO_HEADERS, X-OpenWebUI-User-* headers),
 * raise_for_status, then results sorted by index and their relevance_score compared with its
 * RELEVANCE_THRESHOLD (0 to 1). Then TEI's request (texts, no model), which the Open WebUI forks
 * built for TEI, and TEI's own clients, send. Raw fetch: there is no npm client.
 */
describe("the reranker as Open WebUI and TEI clients call it", () => {
    let server: TestServer;
    let origin: string;
    const predict = async (headers: Record<string, string>, body: unknown) => {
        const res = await fetch(`${origin}/v1/rerank`, {method: "POST", headers: {"Content-Type": "application/json", ...headers}, body: JSON.stringify(body)});
        return {status: res.status, body: await res.json() as any};
    };
    const scoresByIndex = (results: Array<{index: number, relevance_score?: number, score?: number}>) =>
        [...results].sort((a, b) => a.index - b.index).map((result) => result.relevance_score ?? result.score!);

    beforeAll(async () => {
        // An embedding model beside the reranker: a request without a model must still find the reranker.
        server = await startTestServer({"tiny-reranker": await buildTinyRerankerModel(), "tiny-embed": await buildTinyEmbeddingModel()}, {apiKeys: [key]});
        origin = server.url.replace(/\/v1$/, "");
    });
    afterAll(async () => server?.stop());

    it("gives Open WebUI one score per document, in 0-1, whatever order it sorts them back into", async () => {
        const {status, body} = await predict({
            Authorization: `Bearer ${key}`,
            "X-OpenWebUI-User-Name": "Ada%20L", "X-OpenWebUI-User-Id": "u-1", "X-OpenWebUI-User-Email": "ada@example.com", "X-OpenWebUI-User-Role": "admin"
        }, {model: "tiny-reranker", query, documents, top_n: documents.length});
        expect(status).toBe(200);
        const scores = scoresByIndex(body.results);
        expect(scores).toHaveLength(documents.length);
        for (const score of scores) {
            expect(score).toBeGreaterThan(0);
            expect(score).toBeLessThan(1);
        }
        // Each score is that document's own: ranked alone, a document gets the same one.
        for (const [index, document] of documents.entries()) {
            const alone = await predict({Authorization: `Bearer ${key}`}, {model: "tiny-reranker", query, documents: [document], top_n: 1});
            expect(alone.body.results[0].relevance_score).toBeCloseTo(scores[index]!, 5);
        }
    });

    it("refuses Open WebUI's empty key (it sends 'Bearer ' when none is set) and a wrong one with a 401 its raise_for_status reports", async () => {
        for (const authorization of ["Bearer ", "Bearer wrong"]) {
            const {status, body} = await predict({Authorization: authorization}, {model: "tiny-reranker", query, documents, top_n: documents.length});
            expect(status).toBe(401);
            expect(body.error.type).toBe("authentication_error");
        }
    });

    it("answers TEI's request without a model on the folder's one reranker, in TEI's form, with the scores Open WebUI got", async () => {
        const jina = await predict({Authorization: `Bearer ${key}`}, {model: "tiny-reranker", query, documents});
        const res = await fetch(`${origin}/rerank`, {
            method: "POST", headers: {"Content-Type": "application/json", Authorization: `Bearer ${key}`},
            body: JSON.stringify({query, texts: documents, return_text: true})
        });
        expect(res.status).toBe(200);
        const tei = await res.json() as Array<{index: number, score: number, text: string}>;
        expect(tei.map(({index}) => index)).toEqual(jina.body.results.map(({index}: {index: number}) => index));
        expect(scoresByIndex(tei)).toEqual(scoresByIndex(jina.body.results));
        expect(tei.map(({index, text}) => text === documents[index])).toEqual(documents.map(() => true));
    });

    it("refuses a model that is not a reranker and an empty query with a 400 in the envelope, and serves on", async () => {
        const embedder = await predict({Authorization: `Bearer ${key}`}, {model: "tiny-embed", query, documents, top_n: 5});
        expect(embedder.status).toBe(400);
        expect(embedder.body.error).toMatchObject({param: "model", code: "unsupported_model"});
        const empty = await predict({Authorization: `Bearer ${key}`}, {model: "tiny-reranker", query: "", documents, top_n: 5});
        expect(empty.status).toBe(400);
        expect(empty.body.error.param).toBe("query");
        expect((await predict({Authorization: `Bearer ${key}`}, {model: "tiny-reranker", query, documents, top_n: 5})).status).toBe(200);
    });
});
