import type {ModelSource} from "../../models/modelRegistry.js";
import type {RerankRequest, RerankResponse} from "./rerankRequest.js";

/**
 * Scores the documents against the query on a reranker (400 for a model that is not one: the
 * registry checks the `rerank` capability), sorts them best first and keeps `top_n`. The model is
 * held as embeddings hold theirs: the same queue, memory budget and keep-alive.
 */
export class RerankService {
    public constructor(private readonly models: ModelSource) {}

    public async rerank(request: RerankRequest, signal: AbortSignal): Promise<RerankResponse> {
        const held = await this.models.acquire(request.model, "rerank", {keepAlive: request.keep_alive, signal});
        try {
            const {scores, promptTokens} = await held.model.rerank(request.query, request.documents, signal);
            return {
                model: request.model,
                object: "list",
                results: ranked(scores, request.top_n ?? scores.length).map(({index, score}) => ({
                    index,
                    relevance_score: score,
                    ...(request.return_documents === true ? {document: {text: request.documents[index]!}} : {})
                })),
                usage: {prompt_tokens: promptTokens, total_tokens: promptTokens}
            };
        } finally {
            held.release();
        }
    }
}

/** The `top` best, highest score first; equal scores keep the documents' order (Array.prototype.sort is stable). */
export function ranked(scores: readonly number[], top: number): Array<{index: number, score: number}> {
    return scores.map((score, index) => ({index, score})).sort((a, b) => b.score - a.score).slice(0, top);
}
