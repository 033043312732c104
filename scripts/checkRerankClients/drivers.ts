import type {ModuleLoader} from "./packages.js";

/** One reranking the clients are asked for, and what chatserve's own /v1/rerank answered to it. */
export type RerankCase = {
    origin: string,
    key: string,
    model: string,
    query: string,
    documents: string[],
    topN: number,
    /** Raw `/v1/rerank` with `top_n`: what every client must hand its caller, in this order. */
    expected: Array<{index: number, relevance_score: number}>
};

export type ClientDriver = {
    name: string,
    /** Throws when the client fails or hands back other results; returns what it showed. */
    run(load: ModuleLoader, check: RerankCase): Promise<string>
};

/** The client's results, as (document index, score) pairs, must be chatserve's own, in its order. */
function expectSame(got: Array<[number, number]>, check: RerankCase): string {
    const want = check.expected.map((result): [number, number] => [result.index, result.relevance_score]);
    if (JSON.stringify(got) !== JSON.stringify(want))
        throw new Error(`got ${JSON.stringify(got)}, /v1/rerank answered ${JSON.stringify(want)}`);
    return got.map(([index, score]) => `#${index} ${score.toFixed(4)}`).join(", ");
}

const indexOf = (check: RerankCase, text: string) => check.documents.indexOf(text);

export const drivers: ClientDriver[] = [{
    // LangChain JS's reranker for a retriever pipeline (ContextualCompressionRetriever calls this).
    name: "@langchain/cohere CohereRerank.compressDocuments",
    async run(load, check) {
        const {CohereRerank} = await load("@langchain/cohere");
        const {CohereClient} = await load("cohere-ai", "@langchain/cohere");
        const {Document} = await load("@langchain/core/documents");
        const reranker = new CohereRerank({client: new CohereClient({token: check.key, environment: check.origin}), model: check.model, topN: check.topN});
        const documents = check.documents.map((text) => new Document({pageContent: text, metadata: {}}));
        const kept = await reranker.compressDocuments(documents, check.query) as Array<{pageContent: string, metadata: {relevanceScore: number}}>;
        return expectSame(kept.map((document) => [indexOf(check, document.pageContent), document.metadata.relevanceScore]), check);
    }
}, {
    name: "@langchain/cohere CohereRerank.rerank",
    async run(load, check) {
        const {CohereRerank} = await load("@langchain/cohere");
        const {CohereClient} = await load("cohere-ai", "@langchain/cohere");
        const reranker = new CohereRerank({client: new CohereClient({token: check.key, environment: check.origin}), model: check.model});
        const ranked = await reranker.rerank(check.documents, check.query, {topN: check.topN}) as Array<{index: number, relevanceScore: number}>;
        return expectSame(ranked.map((result) => [result.index, result.relevanceScore]), check);
    }
}, {
    // LlamaIndex TS's node postprocessor, on its own pinned cohere-ai 7.14 (an older SDK than LangChain's).
    name: "@llamaindex/cohere CohereRerank.postprocessNodes (baseUrl)",
    async run(load, check) {
        const {CohereRerank} = await load("@llamaindex/cohere");
        const {TextNode} = await load("@llamaindex/core/schema", "@llamaindex/cohere");
        const reranker = new CohereRerank({apiKey: check.key, baseUrl: check.origin, model: check.model, topN: check.topN});
        const nodes = check.documents.map((text) => ({node: new TextNode({text}), score: 0}));
        const kept = await reranker.postprocessNodes(nodes, check.query) as Array<{node: {getContent(): string}, score: number}>;
        return expectSame(kept.map((result) => [indexOf(check, result.node.getContent()), result.score]), check);
    }
}, {
    // It posts to https://api.jina.ai/v1/rerank, written into its code (no option, no environment
    // variable): a user cannot point it at chatserve. Run here with that one URL redirected, to
    // show that what it sends and reads is what chatserve takes and gives.
    name: "llamaindex JinaAIReranker.postprocessNodes (URL redirected: it has no base-URL option)",
    async run(load, check) {
        const {JinaAIReranker} = await load("llamaindex/postprocessors");
        // Its own copy of LlamaIndex's core (a second one would warn and break its class checks).
        const {TextNode} = await load("@llamaindex/core/schema", "llamaindex");
        const realFetch = globalThis.fetch;
        const asked: string[] = [];
        globalThis.fetch = (async (url: string | URL | Request, init?: RequestInit) => {
            asked.push(String(url));
            return await realFetch(String(url) === "https://api.jina.ai/v1/rerank" ? `${check.origin}/v1/rerank` : url, init);
        }) as typeof fetch;
        process.env.JINAAI_API_KEY = check.key;
        try {
            const reranker = new JinaAIReranker({model: check.model, topN: check.topN});
            const nodes = check.documents.map((text) => ({node: new TextNode({text}), score: 0}));
            const kept = await reranker.postprocessNodes(nodes, check.query) as Array<{node: {getContent(): string}, score: number}>;
            if (asked.some((url) => url !== "https://api.jina.ai/v1/rerank"))
                throw new Error(`it asked for ${asked.join(", ")}`);
            return expectSame(kept.map((result) => [indexOf(check, result.node.getContent()), result.score]), check);
        } finally {
            globalThis.fetch = realFetch;
            delete process.env.JINAAI_API_KEY;
        }
    }
}, {
    // An error must reach the caller as the SDK's own error for its status, with chatserve's message.
    name: "@langchain/cohere, an unknown model: the SDK's 404 error with chatserve's message",
    async run(load, check) {
        const {CohereRerank} = await load("@langchain/cohere");
        const {CohereClient} = await load("cohere-ai", "@langchain/cohere");
        const reranker = new CohereRerank({client: new CohereClient({token: check.key, environment: check.origin}), model: "no-such-reranker"});
        try {
            await reranker.rerank(check.documents, check.query);
        } catch (error) {
            const {statusCode, message} = error as {statusCode?: number, message: string};
            if (statusCode !== 404 || !message.includes("model_not_found"))
                throw new Error(`it threw ${statusCode}: ${message.slice(0, 200)}`);
            return `${(error as Error).constructor.name} ${statusCode}, code model_not_found`;
        }
        throw new Error("it did not throw");
    }
}];
