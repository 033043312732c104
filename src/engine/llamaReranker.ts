import {setImmediate as nextTurn} from "node:timers/promises";
import type {LlamaModel, LlamaRankingContext, Token} from "node-llama-cpp";
import {BadRequestError} from "../errors.js";
import {innerContextMemory, rankingEvaluator} from "./llamaInternals.js";
import {refuseTextBeyondContext} from "./promptSizeGuard.js";
import {rerankTokens} from "./rerankInput.js";
import {SequencePool, type PooledSequence} from "./sequencePool.js";
import type {RerankResult} from "./loadedModel.js";

/**
 * A reranker (a GGUF whose pooling is `rank`: a cross-encoder with a classification head) scoring
 * documents against a query through llama.cpp's rank pooling, one (query, document) pair at a time.
 * Organised as the embedder is (llamaEmbedder.ts): every pair is laid out and checked before any
 * work, then the model's one ranking slot is taken (FIFO queue up to --max-queue, then 503).
 */
export class LlamaReranker {
    private readonly slot: SequencePool<PooledSequence>;
    private readonly evaluate: (tokens: Token[]) => Promise<number>;

    public readonly contextSize: number;
    /** The longest pair it scores: one batch, which llama.cpp evaluates a pair in (llamaModelParts.ts). */
    private readonly batchSize: number;

    public constructor(
        private readonly model: LlamaModel, private readonly context: LlamaRankingContext,
        {contextSize, batchSize, maxQueue}: {contextSize: number, batchSize: number, maxQueue: number}
    ) {
        this.contextSize = contextSize;
        this.batchSize = Math.min(batchSize, contextSize - 1);
        this.slot = new SequencePool<PooledSequence>([{contextTokens: []}], maxQueue);
        this.evaluate = rankingEvaluator(context);
    }

    /**
     * One score per document, in the documents' order: the probability (0–1) the model gives the
     * document of answering the query. Usage counts every pair's tokens, as llama-server's does.
     */
    public async rank(query: string, documents: readonly string[], signal: AbortSignal): Promise<RerankResult> {
        await refuseTextBeyondContext(this.model, [query], this.contextSize, {param: "query"});
        const pairs: Token[][] = [];
        for (const [index, document] of documents.entries())
            pairs.push(await this.pairOf(query, document, index));

        const slot = await this.slot.acquire([], signal);
        try {
            const scores: number[] = [];
            for (const tokens of pairs) {
                signal.throwIfAborted();
                scores.push(await this.evaluate(tokens));
            }
            return {scores, promptTokens: pairs.reduce((sum, tokens) => sum + tokens.length, 0)};
        } finally {
            this.slot.release(slot);
        }
    }

    /** What llama.cpp allocated for the context (llamaInternals.ts: undefined if node-llama-cpp moves it). */
    public get memoryUsage(): {ram: number, vram: number} | undefined {
        return innerContextMemory(this.context);
    }

    public stopQueueing(error: unknown): void {
        this.slot.close(error);
    }

    public async dispose(): Promise<void> {
        await this.slot.whenIdle();
        await this.context.dispose();
    }

    /** A pair's tokens; one document per turn of the event loop, so a long batch does not hold up other streams. */
    private async pairOf(query: string, document: string, index: number): Promise<Token[]> {
        const param = `documents[${index}]`;
        await refuseTextBeyondContext(this.model, [document], this.contextSize, {param});
        if (index > 0)
            await nextTurn();
        const tokens = rerankTokens(this.model, query, document);
        // A pair is evaluated whole in one batch, with a cell of the context to spare: one cut short would be scored on what was left, never silently.
        if (tokens.length > this.batchSize)
            throw new BadRequestError(
                `Invalid '${param}': with the query it is ${tokens.length} tokens long, more than the ${this.batchSize} this reranker scores at once. ` +
                "Split it into shorter documents, or shorten the query.", {param, code: "context_length_exceeded"});
        return tokens;
    }
}
