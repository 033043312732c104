import {setImmediate as nextTurn} from "node:timers/promises";
import type {LlamaEmbeddingContext, LlamaModel, Token} from "node-llama-cpp";
import {BadRequestError} from "../errors.js";
import {innerContextMemory} from "./llamaInternals.js";
import {refuseTextBeyondContext} from "./promptSizeGuard.js";
import {SequencePool, type PooledSequence} from "./sequencePool.js";
import {refuseTokensOutsideVocabulary} from "./textPrompt.js";
import type {EmbeddingResult} from "./loadedModel.js";

/**
 * The vector scaled to length 1, as OpenAI's embeddings and llama-server's are: clients score
 * similarity by dot product. A zero vector stays as it is.
 */
function unitLength(vector: readonly number[]): number[] {
    const norm = Math.hypot(...vector);
    return norm === 0 ? [...vector] : vector.map((value) => value / norm);
}

/**
 * Embeddings through llama.cpp's pooling (mean, CLS, … as the GGUF declares). All inputs of a
 * request are evaluated in this one call, without a round trip per string. An input that does not
 * fit the context (with the tokens the model adds around it) is an error, never silently truncated.
 */
export class LlamaEmbedder {
    /** One request embeds at a time: the context evaluates one input at a time anyway. */
    private readonly slot: SequencePool<PooledSequence>;

    public constructor(
        private readonly model: LlamaModel, private readonly context: LlamaEmbeddingContext, public readonly contextSize: number, maxQueue: number
    ) {
        this.slot = new SequencePool<PooledSequence>([{contextTokens: []}], maxQueue);
    }

    /**
     * Tokenizes and checks every input first, so a bad one is a 400 before any work, then takes the
     * model's one embedding slot (requests wait in a FIFO queue up to --max-queue, then 503) and
     * evaluates input by input, stopping as soon as the client has gone.
     */
    public async embed(inputs: ReadonlyArray<string | readonly number[]>, signal: AbortSignal): Promise<EmbeddingResult> {
        const tokenLists: Token[][] = [];
        for (const [index, input] of inputs.entries())
            tokenLists.push(await this.tokensOf(input, index));

        const slot = await this.slot.acquire([], signal);
        try {
            const vectors: number[][] = [];
            for (const tokens of tokenLists) {
                signal.throwIfAborted();
                vectors.push(unitLength((await this.context.getEmbeddingFor(tokens)).vector));
            }
            // Usage counts what was evaluated: with the tokens the model adds around each input ([CLS], [SEP]), as llama-server does.
            return {vectors, promptTokens: tokenLists.reduce((sum, tokens) => sum + this.context.calculateInputLength(tokens), 0)};
        } finally {
            this.slot.release(slot);
        }
    }

    /** What llama.cpp allocated for the context (llamaInternals.ts: undefined if node-llama-cpp moves it). */
    public get memoryUsage(): {ram: number, vram: number} | undefined {
        return innerContextMemory(this.context);
    }

    /** Shutdown has begun: waiting requests, and any that would wait, fail with 503 at once. */
    public stopQueueing(error: unknown): void {
        this.slot.close(error);
    }

    private async tokensOf(input: string | readonly number[], index: number): Promise<Token[]> {
        // One input per turn of the event loop (and a long one counted in slices first), so a
        // batch of megabytes does not hold up other streams while it is tokenized.
        if (typeof input === "string")
            await refuseTextBeyondContext(this.model, [input], this.contextSize, {param: `input[${index}]`});
        if (index > 0)
            await nextTurn();
        const tokens = typeof input === "string" ? this.model.tokenize(input) : input as Token[];
        if (tokens.length === 0)
            throw new BadRequestError(`Invalid 'input[${index}]': ${input.length === 0 ? "an input must not be empty" : "it holds no tokens for this model to embed"}.`,
                {param: `input[${index}]`, code: "invalid_value"});
        // node-llama-cpp adds the model's begin and end tokens ([CLS], [SEP]) and needs one cell to spare.
        const maximum = this.contextSize - 1 - (this.context.calculateInputLength(tokens) - tokens.length);
        if (tokens.length > maximum)
            throw new BadRequestError(
                `Invalid 'input[${index}]': it is ${tokens.length} tokens long, more than this model's maximum of ${maximum}. ` +
                "Split it into shorter inputs.", {param: `input[${index}]`, code: "context_length_exceeded"});
        refuseTokensOutsideVocabulary(this.model, tokens, `input[${index}]`);
        return tokens;
    }

    public async dispose(): Promise<void> {
        await this.slot.whenIdle();
        await this.context.dispose();
    }
}
