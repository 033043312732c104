import {BadRequestError} from "../../errors.js";
import type {ModelRegistry} from "../../models/modelRegistry.js";
import type {RerankRequest, RerankResponse, TeiRerankResponse} from "./rerankRequest.js";

/** What reranking needs of the registry: a model held for the request, and the list to find the one reranker in. */
export type RerankModels = Pick<ModelRegistry, "acquire" | "list">;

/**
 * Scores the documents against the query on a reranker (400 for a model that is not one: the
 * registry checks the `rerank` capability), sorts them best first and keeps `top_n`. The model is
 * held as embeddings hold theirs: the same queue, memory budget and keep-alive.
 */
export class RerankService {
    public constructor(private readonly models: RerankModels) {}

    /** The model the request names or, named none, the one it gets (below). */
    public modelFor(request: RerankRequest): string {
        return request.model ?? this.onlyReranker();
    }

    public async rerank(request: RerankRequest, signal: AbortSignal): Promise<RerankResponse | TeiRerankResponse> {
        const model = this.modelFor(request);
        const held = await this.models.acquire(model, "rerank", {keepAlive: request.keep_alive, signal});
        try {
            const {scores, promptTokens} = await held.model.rerank(request.query, request.documents, signal);
            const best = ranked(scores, request.top_n ?? scores.length);
            const withText = request.return_documents === true;
            if (request.form === "tei")
                return best.map(({index, score}) => ({index, score, ...(withText ? {text: request.documents[index]!} : {})}));
            return {
                model,
                object: "list",
                results: best.map(({index, score}) => ({index, relevance_score: score, ...(withText ? {document: {text: request.documents[index]!}} : {})})),
                usage: {prompt_tokens: promptTokens, total_tokens: promptTokens}
            };
        } finally {
            held.release();
        }
    }

    /**
     * A request without `model` (TEI's API has none; llama-server serves one model and reads none)
     * goes to the folder's reranker when there is exactly one: with several, which one was meant is
     * not for chatserve to guess.
     */
    private onlyReranker(): string {
        const rerankers = this.models.list().filter((entry) => entry.aliasFor == null && entry.capabilities.includes("rerank")).map((entry) => entry.id);
        if (rerankers.length === 1)
            return rerankers[0]!;
        const why = rerankers.length === 0 ? "the models folder holds no reranker" : `the models folder holds ${rerankers.length} rerankers: name one of ${rerankers.map((id) => `'${id}'`).join(", ")}`;
        throw new BadRequestError(`Missing required parameter: 'model' (${why}).`, {param: "model", code: "missing_required_parameter"});
    }
}

/** The `top` best, highest score first; equal scores keep the documents' order (Array.prototype.sort is stable). */
export function ranked(scores: readonly number[], top: number): Array<{index: number, score: number}> {
    return scores.map((score, index) => ({index, score})).sort((a, b) => b.score - a.score).slice(0, top);
}
